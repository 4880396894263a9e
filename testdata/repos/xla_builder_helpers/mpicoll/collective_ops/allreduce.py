"""Allreduce: the array and the ordering token go through one custom call whose result is
a tuple of the reduced array and a new token; the transpose hands its operands back."""
import numpy as _np

from jax import abstract_arrays
from jax.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

from ..utils import _constant_s32_scalar, _constant_u64_scalar, _ops, _unpack_builder, to_mpi_ptr, unpack_hashable

mpi_allreduce_p = Primitive("allreduce_mpi")
mpi_allreduce_p.multiple_results = True


def Allreduce(x, op, comm, token, _transpose=False):
    return mpi_allreduce_p.bind(x, token, op=op, comm=comm, transpose=_transpose)


def mpi_allreduce_xla_encode_cpu(c, x, token, op, comm, transpose):
    op = unpack_hashable(op)
    comm = unpack_hashable(comm)

    c = _unpack_builder(c)
    x_shape = c.GetShape(x)
    dtype = x_shape.element_type()
    dims = x_shape.dimensions()

    # compute total number of elements in array
    _nitems = _constant_s32_scalar(c, _np.prod(dims, dtype=int))

    sh = xla_client.Shape.tuple_shape(
        [xla_client.Shape.array_shape(dtype, dims), xla_client.Shape.token_shape()]
    )

    if transpose:
        return _ops.Tuple(c, [x, token])
    else:
        return _ops.CustomCall(
            c,
            b"mpi_allreduce",
            operands=(
                _nitems,
                x,
                _constant_u64_scalar(c, to_mpi_ptr(op)),
                _constant_u64_scalar(c, to_mpi_ptr(comm)),
                token,
            ),
            shape=sh,
            has_side_effect=True,
        )


def mpi_allreduce_abstract_eval(xs, token, op, comm, transpose):
    return (
        abstract_arrays.ShapedArray(xs.shape, xs.dtype),
        abstract_arrays.abstract_token,
    )


mpi_allreduce_p.def_abstract_eval(mpi_allreduce_abstract_eval)
xla.backend_specific_translations["cpu"][mpi_allreduce_p] = mpi_allreduce_xla_encode_cpu
