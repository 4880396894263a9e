"""Backend queries and error types through jax.lib."""
import jax
from jax.lib import xla_bridge, xla_client
from jax.lib.xla_bridge import get_backend


def platform():
    return xla_bridge.get_backend().platform, get_backend().platform, xla_bridge.process_index()


def run(f):
    try:
        return f()
    except xla_client.XlaRuntimeError:
        return None


def shape_of(x):
    return jax.lib.xla_client.Shape.array_shape(x.dtype, x.shape)
