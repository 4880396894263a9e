"""Array type aliases of a 2022 imaging library, read in annotations across the package."""
from typing import Optional, Tuple, Union

import numpy as np

import jax
import jax.numpy as jnp
from jax.interpreters.pxla import ShardedDeviceArray

JaxArray = Union[jax.interpreters.xla.DeviceArray, ShardedDeviceArray]
"""A jax array, on one device or sharded over several."""

Array = Union[np.ndarray, JaxArray]
"""Either a NumPy or a jax array."""

MaybeArray = Optional[jax.numpy.DeviceArray]


def norm(x: JaxArray, weights: MaybeArray = None) -> Tuple[JaxArray, float]:
    if weights is not None:
        x = x * weights
    return x, float(jnp.linalg.norm(x))
