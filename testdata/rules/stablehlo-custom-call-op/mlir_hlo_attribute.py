"""The removed jax.interpreters.mlir.hlo reached through the mlir module."""
from jax.interpreters import mlir
from jax.interpreters.mlir import ir


def _lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    op = mlir.hlo.CustomCallOp(
        [out_type],
        [x],
        call_target_name=ir.StringAttr.get("my_target"),
        backend_config="",
        has_side_effect=ir.BoolAttr.get(False),
        api_version=mlir.i32_attr(2),
    )
    return op.results
