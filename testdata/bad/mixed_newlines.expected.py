"""Mixed line endings: rewritten, each line keeps its ending; added lines take the first one."""
from jax.interpreters import mlir
import jax
import json


def _scale_lowering(ctx, x):
    return jax.ffi.ffi_lowering(
        "scale_f32",
        result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])],
        backend_config=json.dumps({"mode": "fast", "alpha": 2.0}, sort_keys=True, separators=(",", ":")),
        api_version=2,
        skip_ffi_layout_processing=True,
    )(ctx, x)
