import jax
from jax.interpreters import mlir


def lowering(ctx, x):
    return mlir.hlo.custom_call([x.type], [x], call_target_name="gpu_fft")
