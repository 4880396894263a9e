"""A sparse solver bridge in the style of mechanics and quantum-physics packages: SciPy on
the host, called from jitted code through host_callback.call."""
import jax
import jax.numpy as jnp
import numpy as np


def host_norms(inputs):
    data, scale = inputs
    return np.asarray(np.linalg.norm(data, axis=-1) * scale, dtype=np.float32)


def device_norms(data, scale):
    inputs = (data, scale)
    return jax.experimental.io_callback(host_norms, jax.ShapeDtypeStruct(data.shape[:-1], jnp.float32),
                    inputs, sharding=jax.sharding.SingleDeviceSharding(jax.local_devices()[0]), ordered=True)


def host_index(states):
    return np.asarray(states.sum(axis=-1), dtype=np.int32)


def states_to_numbers(states):
    # calls back into python
    return jax.experimental.io_callback(
        host_index,
        jax.ShapeDtypeStruct(states.shape[:-1], jnp.int32),
        states, sharding=jax.sharding.SingleDeviceSharding(jax.local_devices()[0]), ordered=True,
    )


def entry():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    return (lambda d, s: (device_norms(d, s), states_to_numbers(d.astype(np.int32)))), (data, np.float32(2))
