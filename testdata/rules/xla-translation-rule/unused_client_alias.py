import jax
from jax.interpreters import mlir
from jax.lib import xla_client

xops = xla_client.ops
_shape = xla_client.Shape


def lowering(ctx, x):
    return mlir.hlo.custom_call([x.type], [x], call_target_name="gpu_fft")
