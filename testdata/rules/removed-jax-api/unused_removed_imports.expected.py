"""Imports of removed names that nothing reads fail at import time for nothing: they go.
A name re-exported through __all__ is read, so it stays (reported)."""
import jax
from jax import lax
from jax.core import ConcreteArray, ShapedArray

__all__ = ["ConcreteArray", "zeros"]


def zeros(x):
    return lax.full_like(x, 0), ShapedArray(x.shape, x.dtype), jax.numpy.ones(3)
