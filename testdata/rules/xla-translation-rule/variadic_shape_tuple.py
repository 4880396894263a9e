"""A light-curve model in the style of small astronomy bindings: the times and a variadic
tail of parameter arrays share one layout, replicated per parameter; two outputs, the
model and its derivatives, whose layouts reuse the input's."""
import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

light_curve_p = Primitive("light_curve")
light_curve_p.multiple_results = True
light_curve_p.def_abstract_eval(lambda t, *params: (
    core.ShapedArray(t.shape, t.dtype), core.ShapedArray(t.shape + (len(params),), t.dtype)))


def _light_curve_translation(c, times, *params):
    times_shape = c.get_shape(times)
    dtype = times_shape.element_type()
    dims = times_shape.dimensions()
    order = tuple(range(len(dims) - 1, -1, -1))
    input_shape = xla_client.Shape.array_shape(dtype, dims, order)
    param_shapes = tuple(input_shape for _ in params)
    n_times = xla_client.ops.ConstantLiteral(c, np.prod(dims).astype(np.int64))
    n_params = xla_client.ops.ConstantLiteral(c, len(params))
    scalar = xla_client.Shape.array_shape(np.dtype(np.int64), (), ())
    model_shape = input_shape
    derivative_shape = xla_client.Shape.array_shape(dtype, dims + (len(params),), tuple(range(len(dims), -1, -1)))
    return xla_client.ops.CustomCallWithLayout(
        c,
        b"light_curve",
        operands=(n_times, n_params, times, *params),
        operand_shapes_with_layout=(scalar, scalar, input_shape) + param_shapes,
        shape_with_layout=xla_client.Shape.tuple_shape((model_shape, derivative_shape)),
    )


xla.backend_specific_translations["cpu"][light_curve_p] = _light_curve_translation


def compat_entry():
    times = np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3)
    return light_curve_p.bind, (times, times, times)
