"""jax.random.KeyArray and jnp.DeviceArray in annotations: jax.Array, as jax advised."""
from typing import Optional

import jax
import jax.numpy as jnp
from jax import Array as KeyArray


def split(key: KeyArray, n: int) -> tuple[KeyArray, jax.Array]:
    return jax.random.split(key, n)


def host(x: Optional[jax.Array]) -> "jnp.ndarray":
    y: jax.Array = x
    return y
