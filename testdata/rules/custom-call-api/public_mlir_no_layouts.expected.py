"""A vendor kernel bound through the public jax.interpreters.mlir.custom_call: no
layouts, explicit api_version, a bytes config; one site uses .results, one .result."""
import jax.interpreters.mlir as mlir
import numpy as np
import jax

OPAQUE = np.array([3, 1], dtype=np.int32).tobytes()


def _gelu_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return jax.ffi.ffi_lowering("vendor_gelu_f32", result_types=[out_type],
                            backend_config=OPAQUE, api_version=3, skip_ffi_layout_processing=True)(ctx, x)


def _norm_lowering(ctx, x, scale):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    y = jax.ffi.build_ffi_lowering_function("vendor_norm_f32", api_version=2, result_types=[out_type],
                         has_side_effect=False, skip_ffi_layout_processing=True)(ctx, x, scale).result
    return [y]
