"""Overlapping windows read with indexing_mode=pl.Unblocked() (element offsets from the
index map), as convolution and sliding-window kernels did before jax 0.6.1."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def _window_sum_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...], axis=0, keepdims=True)


def window_sums(x, *, window=4, stride=2, interpret=False):
    count = (x.shape[0] - window) // stride + 1
    return pl.pallas_call(
        _window_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((count, x.shape[1]), x.dtype),
        grid=(count,),
        in_specs=[pl.BlockSpec((window, x.shape[1]), lambda i: (i * stride, 0), indexing_mode=pl.Unblocked())],
        out_specs=pl.BlockSpec((1, x.shape[1]), lambda i: (i, 0), indexing_mode=pl.Blocked()),
        interpret=interpret,
    )(x)
