"""A UTF-8 file with a byte-order mark (über): rewritten, the mark kept."""
from jax.interpreters import mlir
import jax
import json


def _scale_lowering(ctx, x):
    return jax.ffi.ffi_lowering(
        "scale_f32",
        result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])],
        backend_config=json.dumps({"label": "über"}, sort_keys=True, separators=(",", ":")),
        api_version=2,
        skip_ffi_layout_processing=True,
    )(ctx, x)
