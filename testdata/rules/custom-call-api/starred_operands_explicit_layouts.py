"""A non-uniform FFT binding (jax-finufft style): the descriptor, then the source, then
the point coordinates in reverse order as ``*points_fortran``, each with an explicit
layout from a helper. The extra operand cannot be counted from the primitive, but the
operand display can: ``ctx.avals_in`` gets one entry per operand, each zipped with its
explicit layout."""
import numpy as np
from jax.interpreters import mlir


def default_layouts(*shapes):
    return [range(len(shape) - 1, -1, -1) for shape in shapes]


def _nufft1_lowering(ctx, source, *points, eps):
    descriptor = mlir.ir_constant(np.asarray([eps], dtype=np.float64))
    points_fortran = points[::-1]
    points_shape = [aval.shape for aval in ctx.avals_in[1:]]
    return mlir.custom_call(
        "nufft1d",
        result_types=[mlir.aval_to_ir_type(ctx.module_context, aval) for aval in ctx.avals_out],
        operands=[descriptor, source, *points_fortran],
        operand_layouts=default_layouts([0], ctx.avals_in[0].shape, *points_shape[::-1]),
        result_layouts=default_layouts(ctx.avals_out[0].shape),
    ).results
