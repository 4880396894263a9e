"""Kepler solver lowering in the style of the extending-jax tutorial (jaxlib 0.4.16+)."""
import numpy as np
from jax.interpreters import mlir
from jax.interpreters.mlir import ir
from jaxlib.hlo_helpers import custom_call


def default_layouts(*shapes):
    return [range(len(shape) - 1, -1, -1) for shape in shapes]


def _kepler_lowering(ctx, mean_anom, ecc, *, platform="cpu"):
    np_dtype = np.dtype(ctx.avals_in[0].dtype)
    dtype = ir.RankedTensorType(mean_anom.type)
    dims = dtype.shape
    layout = tuple(range(len(dims) - 1, -1, -1))
    size = np.prod(dims).astype(np.int64)
    if np_dtype == np.float32:
        op_name = platform + "_kepler_f32"
    else:
        op_name = platform + "_kepler_f64"
    return custom_call(
        op_name,
        # Output types
        result_types=[dtype, dtype],
        # The inputs:
        operands=[mlir.ir_constant(size), mean_anom, ecc],
        # Layout specification:
        operand_layouts=[(), layout, layout],
        result_layouts=[layout, layout],
    ).results
