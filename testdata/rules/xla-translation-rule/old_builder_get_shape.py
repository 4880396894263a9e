"""Old builder API, MPI style: the builder unwrapped with getattr, the operand's shape read
with c.GetShape, the kernel chosen per dtype, an element count as a constant operand; a
private constant helper that nothing calls any more."""
import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

_xops = xla_client.ops

bcast_p = Primitive("bcast_inplace")
bcast_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))


def bcast(x):
    return bcast_p.bind(x)


def _s64_constant(c, value):
    return _xops.Constant(c, np.int64(value))


def _builder_of(c):
    return getattr(c, "_builder", c)


def _bcast_encode(c, x):
    c = _builder_of(c)
    shape = c.GetShape(x)
    dtype = shape.element_type()
    dims = shape.dimensions()
    size = 1
    for d in dims:
        size *= d
    if dtype == np.float32:
        target = b"bcast_f32"
    elif dtype == np.float64:
        target = b"bcast_f64"
    else:
        raise TypeError(dtype)
    return _xops.CustomCall(
        c,
        target,
        operands=(_xops.Constant(c, np.int32(size)), x),
        shape=xla_client.Shape.array_shape(dtype, dims),
    )


xla.backend_specific_translations["cpu"][bcast_p] = _bcast_encode


def compat_entry():
    return bcast, (np.ones((2, 3), np.float32),)
