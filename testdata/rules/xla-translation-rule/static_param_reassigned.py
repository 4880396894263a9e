"""mpi4jax style: the rule unwraps its primitive parameters (`comm = unpack_hashable(comm)`)
before building the custom call; those are keyword parameters, not operands, so rebinding
them changes nothing the conversion reads. The operand `x` comes first, as jax passes it."""
import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

_ops = xla_client.ops


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


def mpi_allreduce_xla_encode_cpu(c, x, op, comm):
    op = unpack_hashable(op)
    comm = unpack_hashable(comm)
    x_shape = c.GetShape(x)
    dtype = x_shape.element_type()
    dims = x_shape.dimensions()
    nitems = 1
    for d in dims:
        nitems *= d
    shape = xla_client.Shape.array_shape(dtype, dims, tuple(range(len(dims) - 1, -1, -1)))
    return _ops.CustomCallWithLayout(
        c,
        b"mpi_allreduce",
        operands=(
            _ops.Constant(c, np.intc(nitems)),
            x,
            _ops.Constant(c, np.uintp(op)),
            _ops.Constant(c, np.uintp(comm)),
        ),
        shape_with_layout=shape,
        operand_shapes_with_layout=(
            xla_client.Shape.array_shape(np.dtype(np.intc), (), ()),
            shape,
            xla_client.Shape.array_shape(np.dtype(np.uintp), (), ()),
            xla_client.Shape.array_shape(np.dtype(np.uintp), (), ()),
        ),
        has_side_effect=True,
    )


xla.backend_specific_translations["cpu"][allreduce_p] = mpi_allreduce_xla_encode_cpu


def compat_entry():
    return (lambda x: allreduce(x, 3, 7)), (np.ones((2, 3), np.float32),)
