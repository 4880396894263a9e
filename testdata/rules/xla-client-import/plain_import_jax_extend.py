"""`import jax` does not load jax.extend: the replacement imports jax.extend.backend."""
import jax
from jax.lib import xla_bridge


def on_gpu():
    return xla_bridge.get_backend().platform == "gpu"


print(on_gpu(), jax.devices())
