"""A config of unknown type: manual, never wrapped blindly."""
from jax._src.lib.mlir.dialects import hlo


def _lowering(ctx, x, *, config, out_type):
    return hlo.CustomCallOp([out_type], [x], call_target_name="t", backend_config=config.value).results
