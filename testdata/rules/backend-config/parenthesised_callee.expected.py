# ccmigrate-args: --select backend-config,custom-call-api
"""The builder in parentheses, imported on two paths: ``(custom_call)(...)`` reads like a
parameter list to the quick text test, so the names come from scope analysis; both rules
see the call in the same run, and the dict config is serialised in that run."""
import jax
import json


def lowering(ctx, x, *, n):
    return jax.ffi.ffi_lowering("scale", api_version=2, result_types=[x.type], backend_config=json.dumps({"mode": "fast"}, sort_keys=True, separators=(",", ":")), skip_ffi_layout_processing=True)(ctx, x)
