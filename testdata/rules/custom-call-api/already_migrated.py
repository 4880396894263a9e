"""Already on jax.ffi, plus the private builder that still exists: unchanged."""
import jax
from jax._src.interpreters import mlir as mlir_private


def _lowering(ctx, x):
    return jax.ffi.ffi_lowering("my_target", api_version=2, skip_ffi_layout_processing=True)(ctx, x)


def _private_lowering(ctx, x):
    out_type = mlir_private.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return mlir_private.custom_call("my_target", result_types=[out_type], operands=[x]).results
