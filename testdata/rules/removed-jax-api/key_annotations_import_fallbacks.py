"""jax.random.KeyArray in annotations, as jax advised, behind imports with a None fallback:
the docstring's prose ("as jax advised") binds nothing, so `jax` still resolves."""
from typing import Optional

try:
    import jax
except ImportError:
    jax = None
try:
    import jax.numpy as jnp
except ImportError:
    jnp = None
try:
    from jax.random import KeyArray
except ImportError:
    KeyArray = None


def split(key: KeyArray, n: int) -> tuple[KeyArray, jax.random.KeyArray]:
    return jax.random.split(key, n)


def host(x: Optional[jnp.DeviceArray]) -> "jnp.ndarray":
    y: jax.random.PRNGKeyArray = x
    return y
