# ccmigrate-args: --annotate --select custom-call-api,backend-config
"""A builder call kept for older jax by a version test, whose dict config backend-config
serialises in the same run, under --annotate: the TODO's suggested replacement quotes no
argument that run changes, so the next run writes no second TODO."""
import jax
# TODO(ccmigrate): [custom-call-api] import of `jaxlib.hlo_helpers` (deleted from jax) kept for the 1 manual site(s) that use it, annotated with TODO(ccmigrate): it fails at import time until they are migrated
from jaxlib import hlo_helpers
import json

if jax.__version_info__ < (0, 4, 31):
    def lower(ctx, x):
        # TODO(ccmigrate): [custom-call-api] jaxlib.hlo_helpers.custom_call sits inside the compatibility guard `if jax < 0.4.31`, which keeps it for jax releases that still have it; left as is. When jax < 0.8.0 is no longer supported, use: jax.ffi.build_ffi_lowering_function("legacy_target", api_version=2, <the other arguments as they are>)(ctx, *operands)
        return hlo_helpers.custom_call(
            b"legacy_target",
            result_types=[],
            operands=[x],
            backend_config=json.dumps({"alpha": 2.0, "mode": "fast"}, sort_keys=True, separators=(",", ":")),
        )
else:
    def lower(ctx, x):
        return jax.ffi.ffi_lowering("legacy_target", api_version=2, backend_config='{"alpha":2.0,"mode":"fast"}')(ctx, x)
