# ccmigrate-args: --select backend-config
"""Without --unsafe-fixes the opaque of ops.CustomCall (positional here) is reported, not changed."""
from jax.lib import xla_client


def _barrier(c, token, *, descriptor):
    sh = xla_client.Shape.tuple_shape([xla_client.Shape.token_shape()])
    return xla_client.ops.CustomCall(c, b"barrier", (token,), sh, descriptor)
