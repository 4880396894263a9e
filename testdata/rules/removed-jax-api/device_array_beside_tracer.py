"""DeviceArray beside jax.core.Tracer in a tuple of types (funsor's dispatch tuples): as a
union, jax.Array matches the same values. Alone, or a key type beside Tracer, it stays."""
import jax
import jax.numpy as jnp
import numpy as onp
from jax import core
from jax.core import Tracer
from jax.interpreters.xla import DeviceArray

array = (onp.generic, onp.ndarray, DeviceArray, Tracer)


def is_jax_value(x):
    return isinstance(x, (jnp.DeviceArray, core.Tracer))


def is_concrete(x):
    return isinstance(x, jnp.DeviceArray)


def is_key(x):
    return isinstance(x, (jax.random.KeyArray, Tracer))
