"""A finite-element bridge (2020) turns what jax hands it into solver input: a concrete
aval's value is used, any other aval becomes zeros. jax 0.4.36 dropped concrete avals
(ConcreteArray is gone), so each test for one is False and the abstract path is taken,
which is what that jax did for every traced value already."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.core import ShapedArray


def to_solver_input(value, size):
    if isinstance(value, jax.core.Tracer):
        value = jax.typeof(value)
    if isinstance(value, (ShapedArray,)):
        if True:
            return np.zeros(size)
    if False:
        value = value.val
    return np.asarray(value, dtype=np.float64).reshape(size)


def is_known(value):
    return isinstance(value, (np.ndarray,))


def scale(x):
    return jnp.asarray(to_solver_input(x, x.shape)) * 2.0
