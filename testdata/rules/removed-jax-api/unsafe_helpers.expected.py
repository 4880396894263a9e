# ccmigrate-args: --unsafe-fixes
"""Rewrites that need the user's judgement: a dropped tie_in operand and abstractify."""
import jax


def step(x, y, f):
    return (y + 1), jax.typeof(x)
