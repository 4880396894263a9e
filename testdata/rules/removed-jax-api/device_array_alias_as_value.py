"""A union alias handed on as a value: the dictionary may reach an instance check (on
Python 3.10+ isinstance takes a typing.Union), where jax.Array would also match tracers."""
from typing import Union

import numpy as np

import jax

ArrayLike = Union[jax.interpreters.xla.DeviceArray, np.ndarray]
BACKEND_TYPES = {"jax": ArrayLike}


def scale(x: ArrayLike, factor: float) -> ArrayLike:
    return x * factor
