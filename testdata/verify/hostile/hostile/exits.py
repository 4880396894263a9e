import os

from jax._src.interpreters import mlir

os._exit(3)


def _lowering(ctx, x):
    return mlir.custom_call("exits_target", result_types=[], operands=[x]).results
