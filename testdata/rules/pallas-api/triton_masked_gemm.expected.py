"""A Triton-backend Pallas GEMM as model libraries wrote them for jax 0.4.2x: masked
pl.load/pl.store with the index by keyword, one argument per line, and the Triton
parameters as a flat dictionary."""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _gemm_kernel(a_ref, b_ref, o_ref, *, m, n, block_m, block_n):
    row = pl.program_id(0) * block_m + jnp.arange(block_m)
    col = pl.program_id(1) * block_n + jnp.arange(block_n)
    row_slice = pl.dslice(pl.program_id(0) * block_m, block_m)
    col_slice = pl.dslice(pl.program_id(1) * block_n, block_n)
    a = pltriton.load(
        a_ref.at[row_slice, :],
        mask=(row < m)[:, None],
        other=0.0,
    )
    b = pltriton.load(b_ref.at[:, col_slice], mask=(col < n)[None, :], other=0.0)
    o = jnp.dot(a, b)
    pltriton.store(
        o_ref.at[row_slice, col_slice],
        o.astype(o_ref.dtype),
        mask=(row < m)[:, None] & (col < n)[None, :],
    )


@functools.partial(jax.jit, static_argnames=("block_m", "block_n", "interpret"))
def gemm(a, b, *, block_m=16, block_n=16, interpret=False):
    m, _ = a.shape
    _, n = b.shape
    kernel = functools.partial(_gemm_kernel, m=m, n=n, block_m=block_m, block_n=block_n)
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), a.dtype),
        grid=(pl.cdiv(m, block_m), pl.cdiv(n, block_n)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=2),
        interpret=interpret,
    )(a, b)
