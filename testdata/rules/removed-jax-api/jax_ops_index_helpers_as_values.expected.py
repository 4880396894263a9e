"""aesara-style dispatch: the index helpers picked as values, called later with or
without the keywords they took."""
import jax
import jax.numpy as jnp


def inc_subtensor(set_instead_of_inc):
    if set_instead_of_inc:
        jax_fn = lambda x, idx, y, indices_are_sorted=False, unique_indices=False: jnp.asarray(x).at[idx].set(y, indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    else:
        jax_fn = lambda x, idx, y, indices_are_sorted=False, unique_indices=False: jnp.asarray(x).at[idx].add(y, indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)

    def incsubtensor(x, y, *ilist, jax_fn=jax_fn):
        return jax_fn(x, ilist, y)

    return incsubtensor


SCATTERS = {"min": (lambda x, idx, y, indices_are_sorted=False, unique_indices=False: jnp.asarray(x).at[idx].min(y, indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)), "max": (lambda x, idx, y, indices_are_sorted=False, unique_indices=False: jnp.asarray(x).at[idx].max(y, indices_are_sorted=indices_are_sorted, unique_indices=unique_indices))}


def scatter(kind, x, idx, y):
    return SCATTERS[kind](x, idx, y, indices_are_sorted=True, unique_indices=True)


def scaled(x, idx):
    return jnp.sum(jnp.asarray(x).at[idx].multiply(2.0))
