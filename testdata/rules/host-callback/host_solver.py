"""A sparse solver bridge in the style of mechanics and quantum-physics packages: SciPy on
the host, called from jitted code through host_callback.call."""
import jax
import jax.numpy as jnp
import numpy as np
import jax.experimental.host_callback as hcb


def host_norms(inputs):
    data, scale = inputs
    return np.asarray(np.linalg.norm(data, axis=-1) * scale, dtype=np.float32)


def device_norms(data, scale):
    inputs = (data, scale)
    return hcb.call(host_norms, inputs,
                    result_shape=jax.ShapeDtypeStruct(data.shape[:-1], jnp.float32))


def host_index(states):
    return np.asarray(states.sum(axis=-1), dtype=np.int32)


def states_to_numbers(states):
    # calls back into python
    return hcb.call(
        host_index,
        states,
        result_shape=jax.ShapeDtypeStruct(states.shape[:-1], jnp.int32),
    )


def entry():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    return (lambda d, s: (device_norms(d, s), states_to_numbers(d.astype(np.int32)))), (data, np.float32(2))
