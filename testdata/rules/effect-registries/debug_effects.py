"""Ordered and unordered print effects of a callback library (modelled on copies of jax's
debugging module): enum members, so registering their type admits every member."""
import enum

from jax import core
from jax.interpreters import mlir
from jax._src.lax import control_flow as lcf

DebugEffect = enum.Enum("DebugEffect", ["PRINT", "ORDERED_PRINT"])

core.ordered_effects.add(DebugEffect.ORDERED_PRINT)
mlir.lowerable_effects.add(DebugEffect.PRINT)
lcf.allowed_effects.add(DebugEffect.PRINT)
allowed = lcf.allowed_effects
