import jax.numpy as jnp


def concatenate(sequences):
    """A sequence of sequences flattened into one list (jax.util.concatenate, removed with jax.util)."""
    return [item for sequence in sequences for item in sequence]


def subvals(items, replace):
    """items as a tuple with each (index, value) of replace put in (jax.util.subvals, removed in jax 0.7.0)."""
    items = list(items)
    for index, value in replace:
        items[index] = value
    return tuple(items)


def flatten_all(groups):
    flat = concatenate(groups)
    return subvals(flat, [(0, jnp.zeros(()))])


def unzip3(triples):
    return tuple(zip(*triples))


def split(triples):
    from jax.util import unzip3

    return unzip3(triples)
