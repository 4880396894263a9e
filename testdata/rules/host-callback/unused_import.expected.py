"""An import of host_callback that nothing reads any more only fails at import time."""
import jax


def double(x):
    return jax.numpy.asarray(x) * 2
