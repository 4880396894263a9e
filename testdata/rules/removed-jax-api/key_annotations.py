"""jax.random.KeyArray and jnp.DeviceArray in annotations: jax.Array, as jax advised."""
from typing import Optional

import jax
import jax.numpy as jnp
from jax.random import KeyArray


def split(key: KeyArray, n: int) -> tuple[KeyArray, jax.random.KeyArray]:
    return jax.random.split(key, n)


def host(x: Optional[jnp.DeviceArray]) -> "jnp.ndarray":
    y: jax.random.PRNGKeyArray = x
    return y
