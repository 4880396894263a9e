"""`import jax` does not load jax.extend: the replacement imports jax.extend.backend."""
import jax
import jax.extend.backend


def on_gpu():
    return jax.extend.backend.get_backend().platform == "gpu"


print(on_gpu(), jax.devices())
