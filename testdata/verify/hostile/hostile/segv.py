import ctypes

from jax._src.interpreters import mlir

ctypes.string_at(0)


def _lowering(ctx, x):
    return mlir.custom_call("segv_target", result_types=[], operands=[x]).results
