"""Without --unsafe-fixes the unsafe rewrites stay: manual findings naming the fix."""
from jax import lax
from jax.interpreters import xla


def step(x, y, f):
    return lax.tie_in(f(x), y + 1), xla.abstractify(x)
