# ccmigrate-args: --target-jax 0.10.0
from jax.interpreters import mlir


def _lowering(ctx, x):
    return mlir.aval_to_ir_type(ctx.avals_out[0])
