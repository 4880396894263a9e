"""A data-parallel trainer's replication helpers (the flax.jax_utils shape): parameters are
replicated onto the local devices for pmap, and a callback table keeps the function
itself; a batch is split into one shard per device. jax 0.10.0 removed
jax.device_put_replicated and device_put_sharded; module-level helpers build the arrays
their last implementation built, on public APIs."""
import jax
import jax.numpy as jnp


def _ccmigrate_device_put_replicated(x, devices):
    """jax.device_put_replicated (removed in jax 0.10.0) on public APIs (added by ccmigrate): each leaf of x
    stacked once per device along a new leading axis, each slice on its device of ``devices``, as jax built
    it (a NamedSharding over a mesh of ``devices``)."""
    from collections.abc import Sequence

    import jax
    import numpy as np

    if not isinstance(devices, Sequence) or not devices:
        raise ValueError("`devices` argument to `device_put_replicated must be a non-empty sequence.")
    axis = "_device_put_replicated"
    sharding = jax.sharding.NamedSharding(jax.sharding.Mesh(np.array(devices), (axis,)),
                                          jax.sharding.PartitionSpec(axis))

    def replicate(leaf):
        if isinstance(leaf, (np.ndarray, jax.Array)):
            first = jax.device_put(leaf[None], devices[0])
        else:
            first = jax.device_put(leaf, devices[0])[None]
        shape = (len(devices),) + first.shape[1:]
        if jax.typeof(first).weak_type:
            # Built from pieces, an array is never weakly typed: broadcast the (scalar) value instead.
            return jax.device_put(jax.numpy.broadcast_to(first, shape), sharding)
        return jax.make_array_from_single_device_arrays(shape, sharding, [jax.device_put(first, d) for d in devices])

    return jax.tree_util.tree_map(replicate, x)


def _ccmigrate_device_put_sharded(shards, devices):
    """jax.device_put_sharded (removed in jax 0.10.0) on public APIs (added by ccmigrate): the i-th shard (or
    each leaf of it) on the i-th device, stacked along a new leading axis, as jax built it (a NamedSharding
    over a mesh of ``devices``)."""
    from collections.abc import Sequence

    import jax
    import numpy as np

    if not isinstance(shards, Sequence):
        raise TypeError(f"device_put_sharded `shards` input must be a sequence; got {type(shards)}")
    if len(shards) != len(devices):
        raise ValueError(f"len(shards) = {len(shards)} must equal len(devices) = {len(devices)}.")
    axis = "_device_put_sharded"
    sharding = jax.sharding.NamedSharding(jax.sharding.Mesh(np.array(devices), (axis,)),
                                          jax.sharding.PartitionSpec(axis))

    def stack(*xs):
        avals = [jax.typeof(x) for x in xs]
        for a1, a2 in zip(avals[:-1], avals[1:]):
            if a1 != a2:
                raise ValueError("the shards passed to device_put_sharded must have consistent shape and dtype, "
                                 f"but got {a1} and {a2}.")
        shape = (len(devices),) + avals[0].shape
        if avals[0].weak_type:
            # Built from pieces, an array is never weakly typed: stack the (scalar) values instead.
            return jax.device_put(jax.numpy.stack([jax.numpy.asarray(x) for x in xs]), sharding)
        pieces = [jax.device_put((x if isinstance(x, (np.ndarray, jax.Array)) else np.asarray(x))[None], d)
                  for x, d in zip(xs, devices)]
        return jax.make_array_from_single_device_arrays(shape, sharding, pieces)

    return jax.tree_util.tree_map(stack, *shards)


def _pmap_device_order():
    return jax.local_devices()


def replicate(tree, devices=None):
    devices = devices or _pmap_device_order()
    return _ccmigrate_device_put_replicated(tree, devices)


def shard(batch, devices=None):
    devices = devices or _pmap_device_order()
    per_device = len(batch) // len(devices)
    return _ccmigrate_device_put_sharded([batch[i * per_device:(i + 1) * per_device] for i in range(len(devices))], devices)


def unreplicate(tree):
    return jax.tree_util.tree_map(lambda x: x[0], tree)


PLACEMENT = {"replicated": (_ccmigrate_device_put_replicated), "single": jax.device_put}


def init_state(rng):
    params = {"w": jnp.ones((3, 2)), "step": 0, "scale": 0.5}
    return replicate({"params": params, "rng": rng})
