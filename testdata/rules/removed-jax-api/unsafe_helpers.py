# ccmigrate-args: --unsafe-fixes
"""Rewrites that need the user's judgement: a dropped tie_in operand and abstractify."""
from jax import lax
from jax.interpreters import xla


def step(x, y, f):
    return lax.tie_in(f(x), y + 1), xla.abstractify(x)
