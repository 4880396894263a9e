"""A cuFFTMp-style binding imports the sharding classes from the private module that
defined them in jax 0.4.1-0.4.13; jax.sharding exports the same classes."""
from jax.sharding import NamedSharding, Mesh, PartitionSpec


def slab_sharding(devices, axis="gpus"):
    return NamedSharding(Mesh(devices, (axis,)), PartitionSpec(axis))
