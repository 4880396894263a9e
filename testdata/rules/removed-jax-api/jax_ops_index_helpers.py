"""A stream cipher's state update of 2021, written with jax.ops' index helpers."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.ops import index_update, index_add


def quarter_round(state, a, b, c, d):
    state = index_add(state, a, state[b])
    state = index_update(state, d, state[d] ^ state[a])
    return index_update(state, jax.ops.index[c, ...], state[c] + state[d], unique_indices=True)


def counter_block(key, counter):
    block = jnp.zeros(16, dtype=jnp.uint32)
    block = index_update(block, jax.ops.index[4:12], key)
    block = jax.ops.index_max(block, 12, counter)
    return jax.ops.index_mul(np.arange(16, dtype=np.uint32), jax.ops.index[::2], 3), block


def scaled_rows(x, rows, factor):
    return jax.ops.index_min(jnp.ones_like(x), rows, factor)
