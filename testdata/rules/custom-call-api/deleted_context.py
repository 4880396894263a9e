"""A lowering rule that had no use for its context deleted it; the FFI builder needs it,
so the ``del`` goes with the rewrite."""
from jax.interpreters import mlir


def _negate_lowering(ctx, x):
    del ctx  # unused
    return mlir.custom_call("negate_f32", result_types=[x.type], operands=[x]).results
