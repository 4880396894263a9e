"""Triton-bridge style: the op is kept to set an extra attribute before returning."""
from jax.interpreters import mlir
from jax.interpreters.mlir import ir


def _triton_kernel_lowering(ctx, *args, kernel_name, serialized_metadata):
    out_types = [mlir.aval_to_ir_type(ctx.module_context, aval) for aval in ctx.avals_out]
    op = mlir.custom_call(
        call_target_name="triton_kernel_call",
        result_types=out_types,
        operands=args,
        backend_config=serialized_metadata,
        has_side_effect=False,
    )
    op.operation.attributes["kernel_name"] = ir.StringAttr.get(kernel_name)
    return op.results
