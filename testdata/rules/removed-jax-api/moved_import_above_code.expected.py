"""Functional-connection kernels that configure jax before the rest of it is imported:
the moved import must stay above the code that reads it."""
import sys

from jax import config
from jax.core import ShapedArray

config.update("jax_numpy_rank_promotion", "allow")

import numpy as onp
import jax.numpy as np


def out_aval(x):
    return ShapedArray(x.shape, onp.float64)


def cast(x):
    return np.asarray(x, dtype=np.float64), sys.maxsize
