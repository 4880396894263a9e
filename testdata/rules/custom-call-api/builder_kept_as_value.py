"""A quadrotor-dynamics tutorial binding the target and result types once with
functools.partial and handing the partial to a helper, and a module-level alias of the
public builder: the calls made through them are not followed, so the builder kept as a
value is reported at each place."""
import functools

import numpy as np
from jax.interpreters import mlir
from jax.interpreters.mlir import ir
from jaxlib import hlo_helpers

_cc = mlir.custom_call


def default_layouts(*shapes):
    return [range(len(shape) - 1, -1, -1) for shape in shapes]


def _dynamics_lowering(ctx, x, u, *, platform="cpu"):
    dtype = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    op_name = platform + "_dynamics_f32"
    size = np.prod(ir.RankedTensorType(x.type).shape).astype(np.int64)
    layout = tuple(range(len(ctx.avals_out[0].shape) - 1, -1, -1))
    call = functools.partial(hlo_helpers.custom_call, op_name, result_types=[dtype], result_layouts=[layout])
    shapes = ir.RankedTensorType(x.type).shape, ir.RankedTensorType(u.type).shape
    if platform == "cpu":
        return _issue(call, [mlir.ir_constant(size), x, u], [()] + default_layouts(*shapes))
    return _issue(call, [x, u], default_layouts(*shapes))


def _issue(builder, operands, layouts):
    return builder(operands=operands, operand_layouts=layouts).results


def _norm_lowering(ctx, x):
    return _cc("norm_f32", result_types=[x.type], operands=[x]).results
