"""A ring-attention backward pass's scratch accumulation: the stored value spans lines
inside pl.store's parentheses and reads the same block with pl.load."""
import jax.numpy as jnp
from jax.experimental import pallas as pl


def _accumulate(dv_scratch_ref, p, do, *, start_k, block_k):
    dv = jnp.dot(p.T, do)
    pl.store(
        dv_scratch_ref,
        (pl.ds(start_k, block_k), slice(None)),
        pl.load(dv_scratch_ref, (pl.ds(start_k, block_k), slice(None)))
        + dv.astype(dv_scratch_ref.dtype),
    )
