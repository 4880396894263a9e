"""Test driver of a distributed FFT binding (2023): it allowed math on arrays spread over
several processes with jax.spmd_mode, which open-source jax stopped reading by 0.4.28
and removed in 0.6.0. Each `with` goes and its block stays; the config option too."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import spmd_mode
from jax.sharding import Mesh

jax.config.update("jax_spmd_mode", "allow_all")


def relative_error(mesh, x, reference):
    # The norms are reduced over every process.
    with jax.spmd_mode('allow_all'):  # needed with several hosts

        error = jnp.linalg.norm(x - reference)
        with mesh:
            scale = jnp.linalg.norm(reference)
        # Both are global scalars now.
        return float(error / scale)


def forward(mesh, x):
    with mesh, jax.spmd_mode("allow_all"):
        return jnp.fft.fft(x)


def backward(x):
    with spmd_mode("allow_all"): return jnp.fft.ifft(x)


def mesh_of_all_devices():
    return Mesh(np.array(jax.devices()), ("gpus",))
