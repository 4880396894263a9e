"""Backend lookups through xla.xb and the private jax._src.lib.xla_bridge."""
import jax
from jax.extend.backend import get_backend


def platform():
    if get_backend().platform == "gpu":
        return jax.local_device_count()
    return jax.process_index(), jax.numpy.zeros(1)
