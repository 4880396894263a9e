"""An ocean model's tridiagonal solver (veros style): the kernel writes a scratch buffer
as a second result, and the builder rule hands back only the first one with
``ops.GetTupleElement(out, 0)``. The lowering keeps both results, with the avals the
tuple shape gave them, and returns ``[out[0]]``; the GPU rule lists its operand shapes
as ``(arr_shape,) * 4``."""
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

_ops = xla_client.ops


def _constant_s64_scalar(c, x):
    return _ops.Constant(c, np.int64(x))


def tridiag_cpu(builder, a, b, c, d):
    x_shape = builder.get_shape(a)
    dtype = x_shape.element_type()
    dims = x_shape.dimensions()
    num_systems = 1
    for el in dims[:-1]:
        num_systems *= el
    stride = dims[-1]
    arr_shape = xla_client.Shape.array_shape(dtype, dims)
    out_shape = xla_client.Shape.tuple_shape([arr_shape, xla_client.Shape.array_shape(dtype, (stride,))])
    kernel = b"tridiag_f32" if dtype == np.float32 else b"tridiag_f64"
    out = _ops.CustomCall(
        builder,
        kernel,
        operands=(a, b, c, d, _constant_s64_scalar(builder, num_systems), _constant_s64_scalar(builder, stride)),
        shape=out_shape,
    )
    return _ops.GetTupleElement(out, 0)


def tridiag_gpu(builder, a, b, c, d):
    dims = builder.get_shape(a).dimensions()
    dtype = builder.get_shape(a).element_type()
    ndims = len(dims)
    arr_layout = tuple(range(ndims - 2, -1, -1)) + (ndims - 1,)
    arr_shape = xla_client.Shape.array_shape(dtype, dims, arr_layout)
    out_shape = xla_client.Shape.tuple_shape([arr_shape, arr_shape])
    out = _ops.CustomCallWithLayout(
        builder,
        b"tridiag_cuda",
        operands=(a, b, c, d),
        shape_with_layout=out_shape,
        operand_shapes_with_layout=(arr_shape,) * 4,
        opaque=b"\x01",
    )
    return _ops.GetTupleElement(out, 0)


tridiag_p = Primitive("tridiag")
xla.backend_specific_translations["cpu"][tridiag_p] = tridiag_cpu
xla.backend_specific_translations["gpu"][tridiag_p] = tridiag_gpu
