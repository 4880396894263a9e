# ccmigrate-args: --select backend-config,custom-call-api,aval-to-ir-type
"""A dict backend_config, which no jax release lowered: make test-compat checks that the
rewrite emits the JSON bytes declared in compat.toml."""
import numpy as np

from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax
import json

scale_p = Primitive("ccm_scale")
scale_p.def_abstract_eval(lambda x: x)


def _scale_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return jax.ffi.ffi_lowering("ccm_scale_f32", result_types=[out_type],
                            backend_config=json.dumps({"mode": "fast", "alpha": 2.0, "sizes": [1, 2]}, sort_keys=True, separators=(",", ":")),
                            api_version=3, skip_ffi_layout_processing=True)(ctx, x)


mlir.register_lowering(scale_p, _scale_lowering, platform="cpu")


def scale(x):
    return scale_p.bind(x)


def compat_entry():
    return scale, (np.ones((2, 3), np.float32),)
