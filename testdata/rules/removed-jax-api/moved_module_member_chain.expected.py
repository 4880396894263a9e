"""``jax.pxla`` is ``jax.interpreters.pxla`` now (modelled on chex and pjit-era sharding
code). Only the module's member moves: what is read from it (``.env.physical_mesh``, state
a ``with mesh:`` block sets) stays an attribute read where it was. A member gone from the
new home too is reported, not imported (an import would fail when the module loads). A
reference behind ``hasattr(...) and`` runs only where jax still has the name: left alone."""
import jax
from jax.interpreters.pxla import thread_resources


def physical_mesh():
    return thread_resources.env.physical_mesh


def is_sharded_device_array(x):
    return (
        hasattr(jax, "pxla")
        and hasattr(jax.pxla, "ShardedDeviceArray")
        and isinstance(x, jax.pxla.ShardedDeviceArray)
    )


def as_sharded(x):
    return jax.pxla.ShardedDeviceArray(x)
