"""Allreduce: the array and the ordering token go through one custom call whose result is
a tuple of the reduced array and a new token; the transpose hands its operands back."""
import numpy as _np

from jax.extend.core import Primitive
from jax.interpreters import mlir

from ..utils import _constant_s32_scalar, _constant_u64_scalar, _unpack_builder, to_mpi_ptr, unpack_hashable
import jax
from jax import core
from jax.core import ShapedArray, abstract_token

mpi_allreduce_p = Primitive("allreduce_mpi")
mpi_allreduce_p.multiple_results = True


def Allreduce(x, op, comm, token, _transpose=False):
    return mpi_allreduce_p.bind(x, token, op=op, comm=comm, transpose=_transpose)


def mpi_allreduce_xla_encode_cpu(ctx, x, token, op, comm, transpose):
    op = unpack_hashable(op)
    comm = unpack_hashable(comm)

    x_shape = ctx.avals_in[0]
    dtype = x_shape.dtype
    dims = x_shape.shape

    # compute total number of elements in array
    _nitems = _np.int32(_np.prod(dims, dtype=int))

    if transpose:
        return [x, token]
    else:
        return jax.ffi.ffi_lowering(
            "mpi_allreduce",
            api_version=1,
            has_side_effect=True,
            skip_ffi_layout_processing=True,
        )(ctx.replace(avals_in=[core.ShapedArray(_nitems.shape, _nitems.dtype), ctx.avals_in[0], core.ShapedArray((), _np.uint64), core.ShapedArray((), _np.uint64), ctx.avals_in[1]]), mlir.ir_constant(_np.asarray(_nitems)), x, mlir.ir_constant(_np.asarray(_np.uint64(to_mpi_ptr(op)))), mlir.ir_constant(_np.asarray(_np.uint64(to_mpi_ptr(comm)))), token)


def mpi_allreduce_abstract_eval(xs, token, op, comm, transpose):
    return (
        ShapedArray(xs.shape, xs.dtype),
        abstract_token,
    )


mpi_allreduce_p.def_abstract_eval(mpi_allreduce_abstract_eval)
mlir.register_lowering(mpi_allreduce_p, mpi_allreduce_xla_encode_cpu, platform="cpu")
