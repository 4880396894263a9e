"""Helpers of a 2022 cosmology likelihood: NumPy names jax.numpy dropped with NumPy 2.0's
clean-up (in1d, trapz removed in jax 0.4.24; msort gone by 0.4.28), called positionally,
by keyword and through a from-import."""
import jax.numpy as jnp
from jax.scipy.integrate import trapezoid


def comoving_distance(z_grid, inv_e):
    return trapezoid(inv_e, z_grid, axis=-1)


def observed_mask(pixels, observed):
    return jnp.isin(pixels, observed, invert=False).ravel()


def unobserved_mask(pixels, observed):
    return jnp.isin(element=pixels, test_elements=observed, invert=True).ravel()


def sorted_columns(table):
    return jnp.sort(table * 2, axis=0)
