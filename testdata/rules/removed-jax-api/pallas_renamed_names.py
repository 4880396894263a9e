"""Pallas names jax renamed or moved (paged-attention and Triton kernels of 2024):
TPUMemorySpace/TPUCompilerParams, pltpu.ANY, pltpu.delay, pltpu.repeat, the Triton module's old
name and its atomics."""
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas.tpu import TPUMemorySpace
from jax.experimental.pallas import gpu as plgpu


def copy_kernel(x_hbm_ref, o_ref, sem):
    pltpu.delay(10)
    o_ref[...] = x_hbm_ref[...]


def paged_specs():
    return [
        pl.BlockSpec(memory_space=pltpu.TPUMemorySpace.ANY),
        pl.BlockSpec(memory_space=TPUMemorySpace.ANY),
        pl.BlockSpec(memory_space=TPUMemorySpace.SMEM),
        pl.BlockSpec(memory_space=pltpu.ANY),
    ]


def segment_mask(q_segment_ids, kv_segment_ids, block_k):
    q = pltpu.repeat(q_segment_ids, block_k // 128, axis=1)
    return q == kv_segment_ids


def tpu_params():
    return pltpu.TPUCompilerParams(dimension_semantics=("parallel", "arbitrary"))


def histogram_kernel(x_ref, o_ref):
    pl.atomic_add(o_ref, (0,), x_ref[0])


triton_params = plgpu.TritonCompilerParams(num_warps=4, num_stages=3)
