"""aesara-style dispatch: the index helpers picked as values, called later with or
without the keywords they took."""
import jax
import jax.numpy as jnp


def inc_subtensor(set_instead_of_inc):
    if set_instead_of_inc:
        jax_fn = jax.ops.index_update
    else:
        jax_fn = jax.ops.index_add

    def incsubtensor(x, y, *ilist, jax_fn=jax_fn):
        return jax_fn(x, ilist, y)

    return incsubtensor


SCATTERS = {"min": jax.ops.index_min, "max": jax.ops.index_max}


def scatter(kind, x, idx, y):
    return SCATTERS[kind](x, idx, y, indices_are_sorted=True, unique_indices=True)


def scaled(x, idx):
    return jnp.sum(jax.ops.index_mul(x, idx, 2.0))
