from jax._src.interpreters import mlir

hoard = []
while True:
    hoard.append(bytearray(256 * 1024 * 1024))


def _lowering(ctx, x):
    return mlir.custom_call("hog_target", result_types=[], operands=[x]).results
