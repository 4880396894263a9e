import time

from jax._src.interpreters import mlir

while True:
    time.sleep(0.05)


def _lowering(ctx, x):
    return mlir.custom_call("hangs_target", result_types=[], operands=[x]).results
