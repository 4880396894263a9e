"""jax.config members read on an integrals package's import (2020-2021): the omnistaging
switches and options set as attributes of the config object."""
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)
jax.config.enable_omnistaging()


def check_precision():
    if not jax.config.jax_enable_x64 or not jax.config.x64_enabled:
        raise RuntimeError("integrals need 64-bit floats")


def legacy_tracing():
    jax.config.disable_omnistaging()


def configure(flags):
    if flags.omnistaging:
        jax.config.enable_omnistaging()
    return jax.config.read("jax_enable_x64") and jnp.float64
