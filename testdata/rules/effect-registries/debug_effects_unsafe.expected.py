# ccmigrate-args: --unsafe-fixes
"""Ordered and unordered print effects of a callback library (modelled on copies of jax's
debugging module): enum members, so registering their type admits every member."""
import enum

from jax._src.lax import control_flow as lcf
from jax._src import effects

DebugEffect = enum.Enum("DebugEffect", ["PRINT", "ORDERED_PRINT"])

effects.ordered_effects.add_type(type(DebugEffect.ORDERED_PRINT))
effects.lowerable_effects.add_type(type(DebugEffect.PRINT))
effects.control_flow_allowed_effects.add_type(type(DebugEffect.PRINT))
allowed = lcf.allowed_effects
