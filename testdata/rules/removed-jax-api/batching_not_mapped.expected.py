"""A layer-norm batching rule: jax's not-mapped marker was the constant None
(`batching.not_mapped`) and its type (`batching.NotMapped`); both names are gone, the
values are written out. The name imported on its own is reported (its uses are bare
names), as is the import."""
import jax.numpy as jnp
from jax.interpreters.batching import not_mapped


def layernorm_fwd_batcher(batched_args, batch_dims, *, epsilon):
    x, gamma, beta = batched_args
    x_bdim, gamma_bdim, beta_bdim = batch_dims
    if not (gamma_bdim is beta_bdim is None):
        raise NotImplementedError
    if x_bdim == x.ndim - 1:
        x = jnp.moveaxis(x, -1, -2)
        x_bdim = x.ndim - 2
    out_bdims = x_bdim, None, None
    return (x, gamma, beta), out_bdims


def is_unbatched(bdim):
    return isinstance(bdim, type(None)) or bdim is not_mapped
