"""An MPI-style binding: ops.CustomCall without layouts and a side effect, the
descriptor passed as opaque bytes from the pybind11 module."""
import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax

allreduce_p = Primitive("allreduce")
allreduce_p.def_abstract_eval(lambda x, *, op: core.ShapedArray(x.shape, x.dtype))


def allreduce(x):
    return allreduce_p.bind(x, op=1)


def _allreduce_translation(ctx, x, *, op):
    return jax.ffi.ffi_lowering(
        "mpi_allreduce",
        api_version=1,
        backend_config=bytes([op, 0, 0, 0]),
        has_side_effect=True,
        skip_ffi_layout_processing=True,
    )(ctx, x)


mlir.register_lowering(allreduce_p, _allreduce_translation, platform="cpu")


def compat_entry():
    return allreduce, (np.ones(5, np.float32),)
