"""MPI-style bindings whose scalar operands come from small private helpers returning
ops.Constant(c, np.<type>(x)): each call is replaced by the constant it built, and the
helpers, then unused, go with the xla_client alias."""
import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

_ops = xla_client.ops

allreduce_p = Primitive("allreduce_mpi")
allreduce_p.def_abstract_eval(lambda x, *, count, comm: ShapedArray(x.shape, x.dtype))


def _constant_s32_scalar(c, x):
    return _ops.Constant(c, np.int32(x))


def _constant_u64_scalar(c, x):
    """Communicator handles travel as uint64."""
    return _ops.Constant(c, np.uint64(x))


def mpi_allreduce_xla_encode_cpu(c, x, *, count, comm):
    shape = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))
    return _ops.CustomCallWithLayout(
        c,
        b"mpi_allreduce",
        operands=(_constant_s32_scalar(c, count), x, _constant_u64_scalar(c, comm)),
        shape_with_layout=shape,
        operand_shapes_with_layout=(
            xla_client.Shape.array_shape(np.dtype(np.int32), (), ()),
            shape,
            xla_client.Shape.array_shape(np.dtype(np.uint64), (), ()),
        ),
        has_side_effect=True,
    )


xla.backend_specific_translations["cpu"][allreduce_p] = mpi_allreduce_xla_encode_cpu


def compat_entry():
    return (lambda x: allreduce_p.bind(x, count=4, comm=1234567)), (np.ones(4, np.float32),)
