"""Imports of removed names that nothing reads fail at import time for nothing: they go.
A name re-exported through __all__ is read, so it stays (reported)."""
import jax
from jax import lax
from jax.core import ConcreteArray, ShapedArray
from jaxlib.xla_client import ops

__all__ = ["ConcreteArray", "zeros"]


def zeros(x):
    return lax.zeros_like_array(x), ShapedArray(x.shape, x.dtype), jax.numpy.ones(3)
