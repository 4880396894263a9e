"""Helpers of a 2022 cosmology likelihood: NumPy names jax.numpy dropped with NumPy 2.0's
clean-up (in1d, trapz removed in jax 0.4.24; msort gone by 0.4.28), called positionally,
by keyword and through a from-import."""
import jax.numpy as jnp
from jax.numpy import in1d


def comoving_distance(z_grid, inv_e):
    return jnp.trapz(inv_e, z_grid, axis=-1)


def observed_mask(pixels, observed):
    return jnp.in1d(pixels, observed, invert=False)


def unobserved_mask(pixels, observed):
    return in1d(ar1=pixels, ar2=observed, invert=True)


def sorted_columns(table):
    return jnp.msort(table * 2)
