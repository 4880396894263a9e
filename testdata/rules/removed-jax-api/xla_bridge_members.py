"""Backend lookups through xla.xb and the private jax._src.lib.xla_bridge."""
import jax
from jax._src.lib import xla_bridge
from jax.interpreters import xla


def platform():
    if xla_bridge.get_backend().platform == "gpu":
        return xla.xb.local_device_count()
    return xla_bridge.process_index(), jax.numpy.zeros(1)
