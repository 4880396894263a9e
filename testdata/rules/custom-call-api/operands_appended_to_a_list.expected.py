"""Scalar descriptor operands built up in a list next to the array input (a linear-operator
binding: `operands.append(...)`, `operands += [...]`) or placed before the inputs (a
PyTorch bridge: `[ir_constant(z) for z in desc] + list(args)`): the count of operands beyond
the primitive's inputs is not static, but every layout is explicit."""
import numpy as np

from jax.interpreters import mlir
import jax


def _linop_lowering(ctx, x, *, stateid, adjoint):
    shape_in = ctx.avals_in[0].shape
    layout_in = tuple(range(len(shape_in) - 1, -1, -1))
    operands = [x]
    operands.append(mlir.ir_constant(np.int64(stateid)))
    operands.append(mlir.ir_constant(np.int64(adjoint)))
    operands += [mlir.ir_constant(np.int64(i)) for i in shape_in]
    operand_layouts = [layout_in] + [()] * (2 + len(shape_in))
    return jax.ffi.ffi_lowering(
        "cpu_linop",
        api_version=2,
        result_types=[mlir.ir.RankedTensorType(x.type)], result_layouts=[layout_in], operand_layouts=operand_layouts,
    )(ctx.replace(avals_in=[None] * len(operand_layouts)), *operands)


def _torch_call_lowering(ctx, *args, desc=(3, 1)):
    in_layouts = [tuple(range(len(aval.shape) - 1, -1, -1)) for aval in ctx.avals_in]
    out_layouts = [tuple(range(len(aval.shape) - 1, -1, -1)) for aval in ctx.avals_out]
    return jax.ffi.ffi_lowering(
        "cpu_torch_call_f32",
        api_version=2,
        result_types=[mlir.aval_to_ir_type(ctx.module_context, aval) for aval in ctx.avals_out],
        operand_layouts=[() for _ in desc] + in_layouts,
        result_layouts=out_layouts,
    )(ctx.replace(avals_in=[None] * len([() for _ in desc] + in_layouts)), *[mlir.ir_constant(np.int64(z)) for z in desc] + list(args))


def _scaled_sum_lowering(ctx, x, u, *, n):
    # A list bound once and then appended to: its display no longer says how many operands.
    ops = [x, u]
    ops.append(mlir.ir_constant(np.int32(n)))
    return jax.ffi.ffi_lowering(
        "cpu_scaled_sum",
        api_version=2,
        result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])],
        operand_layouts=[(0,), (0,), ()],
        result_layouts=[(0,)],
    )(ctx.replace(avals_in=[None] * 3), *ops)


def _self_distance_lowering(ctx, points):
    # One input passed twice (queries and the tree are the same points).
    layout = (1, 0)
    return jax.ffi.ffi_lowering(
        "cpu_knn",
        api_version=2,
        result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])],
        operand_layouts=[layout, layout],
        result_layouts=[(1, 0)],
    )(ctx.replace(avals_in=[*ctx.avals_in, None]), points, points)


def _aliased_lowering(ctx, x, u, *, n):
    # The list changed through another name it was unpacked to.
    ops = [x, u]
    extra, scale = ops, n
    extra.append(mlir.ir_constant(np.int32(scale)))
    return jax.ffi.ffi_lowering(
        "cpu_scaled_sum",
        api_version=2,
        result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])],
        operand_layouts=[(0,), (0,), ()],
        result_layouts=[(0,)],
    )(ctx.replace(avals_in=[None] * 3), *ops)
