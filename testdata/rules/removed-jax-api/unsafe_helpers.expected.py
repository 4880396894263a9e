# ccmigrate-args: --unsafe-fixes
"""Rewrites that need the user's judgement: a dropped tie_in operand, abstractify, and a
ShapedArray looked up where jax never had one."""
import jax
from jax.core import ShapedArray


def step(x, y, f):
    return (y + 1), jax.typeof(x), ShapedArray(x.shape, x.dtype)
