"""A data-parallel trainer's replication helpers (the flax.jax_utils shape): parameters are
replicated onto the local devices for pmap, and a callback table keeps the function
itself; a batch is split into one shard per device. jax 0.10.0 removed
jax.device_put_replicated and device_put_sharded; module-level helpers build the arrays
their last implementation built, on public APIs."""
import jax
import jax.numpy as jnp


def _pmap_device_order():
    return jax.local_devices()


def replicate(tree, devices=None):
    devices = devices or _pmap_device_order()
    return jax.device_put_replicated(tree, devices)


def shard(batch, devices=None):
    devices = devices or _pmap_device_order()
    per_device = len(batch) // len(devices)
    return jax.device_put_sharded([batch[i * per_device:(i + 1) * per_device] for i in range(len(devices))], devices)


def unreplicate(tree):
    return jax.tree_util.tree_map(lambda x: x[0], tree)


PLACEMENT = {"replicated": jax.device_put_replicated, "single": jax.device_put}


def init_state(rng):
    params = {"w": jnp.ones((3, 2)), "step": 0, "scale": 0.5}
    return replicate({"params": params, "rng": rng})
