"""A jaxlib-style ``_add_hlo(dtype, a, b)`` helper (as packages copied them from jaxlib's
lapack.py) returns ``.results`` of the removed builder to the lowering rules calling it.
The helper is private and only called by lowering rules: it takes the context, with an
extra constant operand the callers' avals know nothing of."""
import numpy as np
from jax.interpreters import mlir
from jaxlib.mlir import ir
import jax


def _add_hlo(ctx, dtype, a, b):
    shape = ir.RankedTensorType(a.type).shape
    layout = tuple(range(len(shape) - 1, -1, -1))
    target = "cpu_add_f32" if dtype == np.float32 else "cpu_add_f64"
    return jax.ffi.build_ffi_lowering_function(
        target,
        api_version=2,
        result_types=[a.type],
        operand_layouts=[(), layout, layout],
        result_layouts=[layout],
        result_shapes=None,
    )(ctx.replace(avals_in=[None] * 3, avals_out=[None] * 1), mlir.ir_constant(np.int64(shape[0])), a, b).results


def _add_lowering(ctx, a, b):
    return _add_hlo(ctx, np.float32, a, b)


def _add_f64_lowering(c, a, b):
    (out,) = _add_hlo(c, np.float64, a, b)
    return [out]
