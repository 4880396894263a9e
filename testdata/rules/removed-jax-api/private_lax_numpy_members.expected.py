"""A linear-algebra rule written against jax's private numpy module (2023): the
members it reads moved to other private modules, jax.numpy still exports them."""
from jax._src.numpy import lax_numpy as jnp
from jax.numpy import inf, newaxis, zeros_like


def degenerate_mask(w, a, deg_thresh):
    eji = w[..., newaxis, :] - w[..., newaxis]
    eji = jnp.where(abs(eji) > deg_thresh, eji, inf)
    return jnp.where(abs(eji) > deg_thresh, zeros_like(a), 1), jnp.asarray(eji)
