"""A blocked TPU matmul in the style of 2024 Pallas kernels (quantised-matmul and
grouped-matmul libraries): BlockSpec(index_map, block_shape), Mosaic parameters in a
dictionary, and pl.load/pl.store without masks."""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def _matmul_kernel(x_ref, y_ref, o_ref, *, block_k):
    acc = jnp.zeros(o_ref.shape, jnp.float32)
    for k in range(x_ref.shape[1] // block_k):
        x = x_ref[:, pl.dslice(k * block_k, block_k)]
        y = y_ref[pl.dslice(k * block_k, block_k), :]
        acc += jnp.dot(x, y, preferred_element_type=jnp.float32)
    o_ref[:, :] = acc.astype(o_ref.dtype)


@functools.partial(jax.jit, static_argnames=("block_m", "block_n", "block_k", "interpret"))
def matmul(x, y, *, block_m=128, block_n=128, block_k=128, interpret=False):
    m, k = x.shape
    _, n = y.shape
    return pl.pallas_call(
        functools.partial(_matmul_kernel, block_k=block_k),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // block_m, n // block_n),
        in_specs=[
            pl.BlockSpec((block_m, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, block_n), lambda i, j: (0, j)),
        ],
        out_specs=pl.BlockSpec((block_m, block_n), lambda i, j: (i, j)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel"), vmem_limit_bytes=32 * 1024 * 1024),
        interpret=interpret,
    )(x, y)
