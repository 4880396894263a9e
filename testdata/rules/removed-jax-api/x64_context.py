"""Tests that toggle 64-bit mode with the removed experimental context managers."""
import numpy as np
import jax.numpy as jnp
from jax.experimental import disable_x64, enable_x64
import jax.experimental


def test_dtypes():
    with enable_x64():
        wide = jnp.asarray(np.arange(3.0))
    with disable_x64(), jax.experimental.enable_x64(new_val=False):
        narrow = jnp.asarray(np.arange(3.0))
    return wide.dtype, narrow.dtype
