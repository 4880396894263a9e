"""A jaxlib-style ``_add_hlo(dtype, a, b)`` helper (as packages copied them from jaxlib's
lapack.py) returns ``.results`` of the removed builder to the lowering rules calling it.
The helper is private and only called by lowering rules: it takes the context, with an
extra constant operand the callers' avals know nothing of."""
import numpy as np
from jax.interpreters import mlir
from jaxlib.hlo_helpers import custom_call
from jaxlib.mlir import ir


def _add_hlo(dtype, a, b):
    shape = ir.RankedTensorType(a.type).shape
    layout = tuple(range(len(shape) - 1, -1, -1))
    target = "cpu_add_f32" if dtype == np.float32 else "cpu_add_f64"
    return custom_call(
        target,
        result_types=[a.type],
        operands=[mlir.ir_constant(np.int64(shape[0])), a, b],
        operand_layouts=[(), layout, layout],
        result_layouts=[layout],
    ).results


def _add_lowering(ctx, a, b):
    return _add_hlo(np.float32, a, b)


def _add_f64_lowering(c, a, b):
    (out,) = _add_hlo(np.float64, a, b)
    return [out]
