"""Functional-connection kernels that switch x64 on before the rest of jax is imported:
the moved import must stay above the code that reads it."""
import sys

from jax import config
from jax.core import ShapedArray

config.update("jax_enable_x64", True)

import numpy as onp
import jax.numpy as np


def out_aval(x):
    return ShapedArray(x.shape, onp.float64)


def cast(x):
    return np.asarray(x, dtype=np.float64), sys.maxsize
