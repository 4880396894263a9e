"""Primitive declared the way the extending-jax tutorial did before jax 0.6."""
from functools import partial

from jax import core
from jax.interpreters import mlir, xla
from jax.extend.core import Primitive

_kepler_prim = Primitive("kepler")
_kepler_prim.multiple_results = True
_kepler_prim.def_impl(partial(xla.apply_primitive, _kepler_prim))


def _kepler_abstract(mean_anom, ecc):
    return (core.ShapedArray(mean_anom.shape, mean_anom.dtype),) * 2
