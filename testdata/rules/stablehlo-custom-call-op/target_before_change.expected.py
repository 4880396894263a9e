# ccmigrate-args: --target-jax 0.4.30
# 0.4.30 still converts the str backend_config (kept); no release converted the int api_version.
from jax.interpreters.mlir import hlo
from jax.interpreters import mlir


def _lowering(ctx, x, *, out_type):
    return hlo.CustomCallOp([out_type], [x], call_target_name="t", backend_config="cfg", api_version=mlir.i32_attr(2)).results
