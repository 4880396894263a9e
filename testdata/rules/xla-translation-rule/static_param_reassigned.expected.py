"""mpi4jax style: the rule unwraps its primitive parameters (`comm = unpack_hashable(comm)`)
before building the custom call; those are keyword parameters, not operands, so rebinding
them changes nothing the conversion reads. The operand `x` comes first, as jax passes it."""
import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax


class HashableWrapper:
    def __init__(self, wrapped):
        self.wrapped = wrapped

    def __hash__(self):
        return hash(self.wrapped)

    def __eq__(self, other):
        return isinstance(other, HashableWrapper) and other.wrapped == self.wrapped


def unpack_hashable(obj):
    return getattr(obj, "wrapped", obj)


allreduce_p = Primitive("allreduce_mpi")
allreduce_p.def_abstract_eval(lambda x, op, comm: core.ShapedArray(x.shape, x.dtype))


def allreduce(x, op, comm):
    return allreduce_p.bind(x, op=HashableWrapper(op), comm=HashableWrapper(comm))


def mpi_allreduce_xla_encode_cpu(ctx, x, op, comm):
    op = unpack_hashable(op)
    comm = unpack_hashable(comm)
    x_shape = ctx.avals_in[0]
    dtype = x_shape.dtype
    dims = x_shape.shape
    nitems = 1
    for d in dims:
        nitems *= d
    shape = tuple(range(len(dims) - 1, -1, -1))
    return jax.ffi.ffi_lowering(
        "mpi_allreduce",
        api_version=1,
        has_side_effect=True,
        operand_layouts=(
            (),
            shape,
            (),
            (),
        ),
        result_layouts=[shape],
    )(ctx.replace(avals_in=[core.ShapedArray(np.shape(np.intc(nitems)), np.asarray(np.intc(nitems)).dtype), ctx.avals_in[0], core.ShapedArray(np.shape(np.uintp(op)), np.asarray(np.uintp(op)).dtype), core.ShapedArray(np.shape(np.uintp(comm)), np.asarray(np.uintp(comm)).dtype)]), mlir.ir_constant(np.asarray(np.intc(nitems))), x, mlir.ir_constant(np.asarray(np.uintp(op))), mlir.ir_constant(np.asarray(np.uintp(comm))))


mlir.register_lowering(allreduce_p, mpi_allreduce_xla_encode_cpu, platform="cpu")


def compat_entry():
    return (lambda x: allreduce(x, 3, 7)), (np.ones((2, 3), np.float32),)
