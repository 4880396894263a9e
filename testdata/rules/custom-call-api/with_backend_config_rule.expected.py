# ccmigrate-args: --select custom-call-api,backend-config
"""Both rules on one call: the config is serialised, then the call is moved to jax.ffi."""
from jax.interpreters import mlir
import jax
import json


def _scale_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return jax.ffi.ffi_lowering(
        "scale_f32",
        result_types=[out_type],
        backend_config=json.dumps({"mode": "fast", "alpha": 2.0}, sort_keys=True, separators=(",", ":")),
        api_version=3,
        skip_ffi_layout_processing=True,
    )(ctx, x)
