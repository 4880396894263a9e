# ccmigrate-args: --unsafe-fixes
"""Rewrites that need the user's judgement: a dropped tie_in operand, abstractify, and a
ShapedArray looked up where jax never had one."""
from jax import lax
from jax.extend import core
from jax.interpreters import xla


def step(x, y, f):
    return lax.tie_in(f(x), y + 1), xla.abstractify(x), core.ShapedArray(x.shape, x.dtype)
