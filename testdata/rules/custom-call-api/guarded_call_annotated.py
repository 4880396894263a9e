# ccmigrate-args: --annotate --select custom-call-api,backend-config
"""A builder call kept for older jax by a version test, whose dict config backend-config
serialises in the same run, under --annotate: the TODO's suggested replacement quotes no
argument that run changes, so the next run writes no second TODO."""
import jax
from jaxlib import hlo_helpers

if jax.__version_info__ < (0, 4, 31):
    def lower(ctx, x):
        return hlo_helpers.custom_call(
            b"legacy_target",
            result_types=[],
            operands=[x],
            backend_config={"alpha": 2.0, "mode": "fast"},
        )
else:
    def lower(ctx, x):
        return jax.ffi.ffi_lowering("legacy_target", api_version=2, backend_config='{"alpha":2.0,"mode":"fast"}')(ctx, x)
