"""A vendor kernel bound through the public jax.interpreters.mlir.custom_call: no
layouts, explicit api_version, a bytes config; one site uses .results, one .result."""
import jax.interpreters.mlir as mlir
import numpy as np

OPAQUE = np.array([3, 1], dtype=np.int32).tobytes()


def _gelu_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return mlir.custom_call("vendor_gelu_f32", result_types=[out_type], operands=[x],
                            backend_config=OPAQUE, api_version=3).results


def _norm_lowering(ctx, x, scale):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    y = mlir.custom_call("vendor_norm_f32", result_types=[out_type], operands=[x, scale],
                         has_side_effect=False).result
    return [y]
