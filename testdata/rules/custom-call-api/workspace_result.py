"""A solver with a workspace result the primitive does not return. The call's result types
are explicit, so ctx.avals_out only pairs with the explicit result layouts: the context
gets one entry per layout, and result_shapes stays None as the old builder left it."""
from jax.interpreters import mlir
from jax.interpreters.mlir import ir


def _solve_lowering(ctx, a):
    a_type = ir.RankedTensorType(a.type)
    workspace_type = ir.RankedTensorType.get([1024], ir.IntegerType.get_signless(8))
    out, _workspace = mlir.custom_call(
        "cpu_solve",
        result_types=[a_type, workspace_type],
        operands=[a],
        operand_layouts=[(1, 0)],
        result_layouts=[(1, 0), (0,)],
    ).results
    return [out]


def _scan_lowering(ctx, x, *, width):
    # Layouts computed in the rule and read back twice: the count goes through len().
    rank = len(ir.RankedTensorType(x.type).shape)
    layout = tuple(range(rank - 1, -1, -1))
    out_layouts = [layout] * (1 + width)
    out = mlir.custom_call(
        "cpu_scan",
        result_types=[x.type] * (1 + width),
        operands=[x],
        operand_layouts=[layout],
        result_layouts=out_layouts,
    )
    return out.results[:1]
