"""Triton-bridge style: the op is kept to set an extra attribute before returning."""
from jax.interpreters import mlir
from jax.interpreters.mlir import ir
import jax


def _triton_kernel_lowering(ctx, *args, kernel_name, serialized_metadata):
    out_types = [mlir.aval_to_ir_type(ctx.module_context, aval) for aval in ctx.avals_out]
    op = jax.ffi.build_ffi_lowering_function(
        "triton_kernel_call",
        api_version=2,
        result_types=out_types,
        backend_config=serialized_metadata,
        has_side_effect=False,
        skip_ffi_layout_processing=True,
    )(ctx, *args)
    op.operation.attributes["kernel_name"] = ir.StringAttr.get(kernel_name)
    return op.results
