"""Kepler solver lowering in the style of the extending-jax tutorial (jaxlib 0.4.16+)."""
import numpy as np
from jax.interpreters import mlir
from jax.interpreters.mlir import ir
import jax


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
    return jax.ffi.ffi_lowering(
        op_name,
        api_version=2,
        # Output types
        result_types=[dtype, dtype],
        # The inputs:
        # Layout specification:
        operand_layouts=[(), layout, layout],
        result_layouts=[layout, layout],
    )(ctx.replace(avals_in=[*ctx.avals_in, None]), mlir.ir_constant(size), mean_anom, ecc)
