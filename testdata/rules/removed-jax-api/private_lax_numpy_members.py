"""A linear-algebra rule written against jax's private numpy module (2023): the
members it reads moved to other private modules, jax.numpy still exports them."""
from jax._src.numpy import lax_numpy as jnp


def degenerate_mask(w, a, deg_thresh):
    eji = w[..., jnp.newaxis, :] - w[..., jnp.newaxis]
    eji = jnp.where(abs(eji) > deg_thresh, eji, jnp.inf)
    return jnp.where(abs(eji) > deg_thresh, jnp.zeros_like(a), 1), jnp.asarray(eji)
