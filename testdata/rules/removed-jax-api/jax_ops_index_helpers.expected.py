"""A stream cipher's state update of 2021, written with jax.ops' index helpers."""
import jax
import jax.numpy as jnp
import numpy as np


def quarter_round(state, a, b, c, d):
    state = jnp.asarray(state).at[a].add(state[b])
    state = jnp.asarray(state).at[d].set(state[d] ^ state[a])
    return jnp.asarray(state).at[c, ...].set(state[c] + state[d], unique_indices=True)


def counter_block(key, counter):
    block = jnp.zeros(16, dtype=jnp.uint32)
    block = jnp.asarray(block).at[4:12].set(key)
    block = jnp.asarray(block).at[12].max(counter)
    return jnp.asarray(np.arange(16, dtype=np.uint32)).at[::2].multiply(3), block


def scaled_rows(x, rows, factor):
    return jnp.ones_like(x).at[rows].min(factor)
