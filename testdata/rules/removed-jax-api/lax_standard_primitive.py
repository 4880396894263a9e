"""A primitive built with jax.lax's internal helpers, as the first custom-call tutorials
did (2020): standard_primitive over a shape rule and a naryop_dtype_rule partial, with
rules for jax.mask's interpreter beside its batching rule. Both helpers go to module-level
definitions on public APIs; the masking registrations, and their import, go."""
from functools import partial

import numpy as np
from jax import lax
from jax.interpreters import batching, masking, mlir


def _sincos_shape_rule(x, y):
    assert x.shape == y.shape
    return (x.shape, x.shape)


def _sincos_result_dtype(*avals):
    return (avals[0].dtype, avals[0].dtype)


_sincos_dtype_rule = partial(
    lax.naryop_dtype_rule, _sincos_result_dtype, [{np.floating}, {np.floating}], "sincos"
)
sincos_p = lax.standard_primitive(
    _sincos_shape_rule, _sincos_dtype_rule, "sincos", multiple_results=True
)
mlir.register_lowering(
    sincos_p,
    mlir.lower_fun(lambda x, y: (lax.sin(x) * y, lax.cos(x) * y), multiple_results=True),
)
batching.defbroadcasting(sincos_p)
masking.defnaryop(sincos_p)

scale_p = lax.standard_primitive(
    lambda x: x.shape,
    partial(lax.naryop_dtype_rule, lambda x: x.dtype, [{np.floating}], "scale"),
    "scale",
)
mlir.register_lowering(scale_p, mlir.lower_fun(lambda x: x * 2, multiple_results=False))
masking.masking_rules[scale_p] = lambda padded_vals, logical_shapes: scale_p.bind(*padded_vals)
