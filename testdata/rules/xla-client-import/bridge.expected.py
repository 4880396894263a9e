"""Backend queries and error types through jax.lib."""
import jax
from jax.extend.backend import get_backend


def platform():
    return jax.extend.backend.get_backend().platform, get_backend().platform, jax.process_index()


def run(f):
    try:
        return f()
    except jax.errors.JaxRuntimeError:
        return None


def shape_of(x):
    return jax.lib.xla_client.Shape.array_shape(x.dtype, x.shape)
