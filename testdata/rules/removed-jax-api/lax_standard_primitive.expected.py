"""A primitive built with jax.lax's internal helpers, as the first custom-call tutorials
did (2020): standard_primitive over a shape rule and a naryop_dtype_rule partial, with
rules for jax.mask's interpreter beside its batching rule. Both helpers go to module-level
definitions on public APIs; the masking registrations, and their import, go."""
from functools import partial

import numpy as np
from jax import lax
from jax.interpreters import batching, mlir


def _ccmigrate_naryop_dtype_rule(result_dtype, accepted_dtypes, name, *avals, require_same=True, **params):
    """jax.lax.naryop_dtype_rule (removed in jax 0.4.24) on public APIs (added by ccmigrate): each operand's dtype
    must be a subtype of one accepted at its position, and all the same; result_dtype(*avals) is the answer."""
    from jax import dtypes

    if len(avals) != len(accepted_dtypes):
        raise TypeError(f"{name} takes {len(accepted_dtypes)} operands, got {len(avals)}")
    for i, (aval, accepted) in enumerate(zip(avals, accepted_dtypes)):
        if not any(dtypes.issubdtype(aval.dtype, t) for t in accepted):
            names = ", ".join(t.__name__ for t in accepted)
            raise TypeError(f"{name} does not accept dtype {aval.dtype} at position {i}: "
                            f"accepted dtypes there are subtypes of {names}")
    if require_same and len({aval.dtype for aval in avals}) > 1:
        raise TypeError(f"{name} requires its operands to have the same dtype, got "
                        f"{', '.join(str(aval.dtype) for aval in avals)}")
    return result_dtype(*avals)


def _ccmigrate_standard_primitive(shape_rule, dtype_rule, name, multiple_results=False):
    """jax.lax.standard_primitive (removed in jax 0.4.24) on public APIs (added by ccmigrate): a primitive run by
    compiling it alone, whose outputs' shapes and dtypes come from the two rules, weakly typed when every
    operand is."""
    from functools import partial

    from jax.core import ShapedArray
    from jax.extend.core import Primitive
    from jax.interpreters import xla

    def abstract_eval(*avals, **params):
        shapes, dtypes = shape_rule(*avals, **params), dtype_rule(*avals, **params)
        weak_type = all(aval.weak_type for aval in avals)
        if multiple_results:
            return [ShapedArray(s, d, weak_type=weak_type) for s, d in zip(shapes, dtypes, strict=True)]
        return ShapedArray(shapes, dtypes, weak_type=weak_type)

    prim = Primitive(name)
    prim.multiple_results = multiple_results
    prim.def_impl(partial(xla.apply_primitive, prim))
    prim.def_abstract_eval(abstract_eval)
    return prim


def _sincos_shape_rule(x, y):
    assert x.shape == y.shape
    return (x.shape, x.shape)


def _sincos_result_dtype(*avals):
    return (avals[0].dtype, avals[0].dtype)


_sincos_dtype_rule = partial(
    _ccmigrate_naryop_dtype_rule, _sincos_result_dtype, [{np.floating}, {np.floating}], "sincos"
)
sincos_p = _ccmigrate_standard_primitive(
    _sincos_shape_rule, _sincos_dtype_rule, "sincos", multiple_results=True
)
mlir.register_lowering(
    sincos_p,
    mlir.lower_fun(lambda x, y: (lax.sin(x) * y, lax.cos(x) * y), multiple_results=True),
)
batching.defbroadcasting(sincos_p)

scale_p = _ccmigrate_standard_primitive(
    lambda x: x.shape,
    partial(_ccmigrate_naryop_dtype_rule, lambda x: x.dtype, [{np.floating}], "scale"),
    "scale",
)
mlir.register_lowering(scale_p, mlir.lower_fun(lambda x: x * 2, multiple_results=False))
