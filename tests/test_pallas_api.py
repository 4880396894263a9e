"""The pallas-api rewrites run: each rewritten fixture kernel computes what its legacy
form computed (Pallas's interpreter on the cpu backend, against NumPy), and the TPU one
lowers to Mosaic's custom call with the parameters its dictionary gave."""

from __future__ import annotations

import importlib.util
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import TESTDATA
from tests.lowering import custom_calls

FIXTURES = os.path.join(TESTDATA, "rules", "pallas-api")


def _expected(case: str):
    path = os.path.join(FIXTURES, f"{case}.expected.py")
    spec = importlib.util.spec_from_file_location(f"pallas_{case}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tpu_matmul_rewrite_computes_the_product_in_the_interpreter() -> None:
    module = _expected("tpu_blocked_matmul")
    x = jnp.asarray(np.random.default_rng(0).standard_normal((256, 256)), jnp.float32)
    y = jnp.asarray(np.random.default_rng(1).standard_normal((256, 256)), jnp.float32)
    got = module.matmul(x, y, interpret=True)
    np.testing.assert_allclose(np.asarray(got), np.asarray(x) @ np.asarray(y), rtol=2e-4, atol=2e-4)


def test_tpu_matmul_rewrite_lowers_to_mosaic_with_the_dictionary_parameters() -> None:
    module = _expected("tpu_blocked_matmul")
    args = [jax.ShapeDtypeStruct((256, 256), jnp.float32)] * 2
    lowered = jax.jit(module.matmul).trace(*args).lower(lowering_platforms=("tpu",))
    calls = custom_calls(lowered.compiler_ir("stablehlo"))
    assert [c.target for c in calls] == ["tpu_custom_call"]
    jaxpr = str(jax.make_jaxpr(module.matmul)(*args))
    # What the legacy dictionary asked Mosaic for reaches the pallas_call.
    assert "dimension_semantics=('parallel', 'parallel')" in jaxpr
    assert "vmem_limit_bytes=33554432" in jaxpr
    # BlockSpec(index_map, block_shape) became (block_shape, index_map): 128x256 blocks.
    assert "block_shape=(Blocked(block_size=128), Blocked(block_size=256))" in jaxpr


@pytest.mark.parametrize("m,n", [(32, 32), (20, 24)])
def test_triton_masked_gemm_rewrite_keeps_the_masks(m: int, n: int) -> None:
    module = _expected("triton_masked_gemm")
    rng = np.random.default_rng(2)
    a = rng.standard_normal((m, 16)).astype(np.float32)
    b = rng.standard_normal((16, n)).astype(np.float32)
    got = module.gemm(jnp.asarray(a), jnp.asarray(b), interpret=True)
    np.testing.assert_allclose(np.asarray(got), a @ b, rtol=1e-4, atol=1e-4)


def test_unblocked_rewrite_reads_overlapping_windows_at_element_offsets() -> None:
    module = _expected("unblocked_window")
    x = np.arange(10 * 8, dtype=np.float32).reshape(10, 8)
    got = module.window_sums(jnp.asarray(x), window=4, stride=2, interpret=True)
    want = np.stack([x[i * 2:i * 2 + 4].sum(axis=0) for i in range(4)])
    np.testing.assert_array_equal(np.asarray(got), want)


def test_renamed_pallas_names_import_and_are_the_objects_the_kernels_used() -> None:
    """removed-jax-api's Pallas moves: the rewritten module imports on the installed jax
    and its specs and parameters carry the members the legacy names served."""
    path = os.path.join(TESTDATA, "rules", "removed-jax-api", "pallas_renamed_names.expected.py")
    spec = importlib.util.spec_from_file_location("pallas_renamed_names", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    spaces = [s.memory_space for s in module.paged_specs()]
    assert spaces == [pl.ANY, pl.ANY, pltpu.MemorySpace.SMEM, pl.ANY]
    assert isinstance(module.tpu_params(), pltpu.CompilerParams)
    assert module.tpu_params().dimension_semantics == ("parallel", "arbitrary")
    assert (module.triton_params.num_warps, module.triton_params.num_stages) == (4, 3)


def test_accumulating_store_keeps_its_value_spanning_lines() -> None:
    """``pl.store(ref, idx, pl.load(ref, idx)\\n + dv)`` became an assignment whose value
    is parenthesised: the rows it names get the sum, the others stay."""
    from jax.experimental import pallas as pl

    module = _expected("scratch_accumulation")

    def kernel(init_ref, p_ref, do_ref, o_ref):
        o_ref[...] = init_ref[...]
        module._accumulate(o_ref, p_ref[...], do_ref[...], start_k=8, block_k=8)

    rng = np.random.default_rng(3)
    init, p, do = (rng.standard_normal(s).astype(np.float32) for s in ((16, 16), (4, 8), (4, 16)))
    got = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((16, 16), jnp.float32), interpret=True)(init, p, do)
    want = init.copy()
    want[8:16] += p.T @ do
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
