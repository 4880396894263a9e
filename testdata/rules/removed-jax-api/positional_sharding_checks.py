"""Sharding rules of a flash-attention binding (2024): they accept the PositionalSharding
jax 0.4 made beside NamedSharding. jax 0.7.0 removed the class and makes only the others,
so each test for it is False."""
import jax
from jax.sharding import NamedSharding
from jax.sharding import PositionalSharding


def is_replicated(sharding):
    return (isinstance(sharding, PositionalSharding) and sharding.shape == (1,)) or (
        isinstance(sharding, NamedSharding) and len(sharding.spec) == 0)


def heads_axis(sharding):
    if isinstance(sharding, (PositionalSharding, jax.sharding.SingleDeviceSharding)):
        return None
    elif isinstance(sharding, jax.sharding.PositionalSharding):
        return sharding.shape[2]
    return sharding.spec[2] if len(sharding.spec) > 2 else None
