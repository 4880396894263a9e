"""Tests that toggle 64-bit mode with the removed experimental context managers."""
import numpy as np
import jax.numpy as jnp
import jax.experimental


def test_dtypes():
    with jax.enable_x64(True):
        wide = jnp.asarray(np.arange(3.0))
    with jax.enable_x64(False), jax.enable_x64(False):
        narrow = jnp.asarray(np.arange(3.0))
    return wide.dtype, narrow.dtype
