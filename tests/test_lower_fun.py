"""``xla.lower_fun`` registrations rewritten by xla-translation-rule lower on the installed
jax to the traced implementation, on the platforms the legacy registration named.

The legacy side cannot run here: the last jax whose ``xla.lower_fun`` worked (0.3.x; in
0.3.25 it is a stub raising RuntimeError) has no jaxlib for this Python. What is checked
instead is what ``xla.lower_fun`` did: trace the function and emit its operations inline,
for every platform (``xla.translations``) or one (``backend_specific_translations``,
``register_translation(..., platform=)``).
"""

from __future__ import annotations

import os
import types

import numpy as np
import pytest

jax = pytest.importorskip("jax")
from jax.extend.mlir import ir  # noqa: E402

from codemods.rule import Safety  # noqa: E402
from tests.helpers import TESTDATA, rewrite_source  # noqa: E402

FOLDER = os.path.join(TESTDATA, "rules", "xla-translation-rule")


@pytest.fixture(scope="module")
def migrated() -> types.ModuleType:
    path = os.path.join(FOLDER, "lower_fun.py")
    with open(path, "rb") as fh:
        source = fh.read()
    # As `ccmigrate apply` would: jax.core.Primitive is core-primitive's to move.
    result = rewrite_source(source, path, ["--select", "xla-translation-rule,core-primitive"])
    assert result.error is None and result.updated is not None
    assert b"xla" not in result.updated.replace(b"xla.lower_fun", b"").split(b'"""', 2)[2]
    module = types.ModuleType("migrated_lower_fun")
    exec(compile(result.updated, path, "exec"), module.__dict__)
    return module


def _ops(fn, *args, platform: str = "cpu") -> list[str]:
    lowered = jax.jit(fn).trace(*args).lower(lowering_platforms=(platform,))
    module = lowered.compiler_ir("stablehlo")
    names: list[str] = []

    def visit(op):
        names.append(op.operation.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return names


def _single(prim):
    prim.def_abstract_eval(lambda *avals, **_: avals[-1])
    return prim


def test_lowering_for_every_platform_inlines_the_implementation(migrated) -> None:
    axpy = _single(migrated.axpy_p)
    x = np.ones(4, np.float32)
    for platform in ("cpu", "cuda", "rocm", "tpu"):
        ops = _ops(lambda a, b, c: axpy.bind(a, b, c), np.float32(2), x, x, platform=platform)
        assert "stablehlo.multiply" in ops and "stablehlo.add" in ops, (platform, ops)
        assert "stablehlo.custom_call" not in ops


def test_platform_of_the_legacy_registration_is_kept(migrated) -> None:
    clip = _single(migrated.clip_p)
    scale = _single(migrated.scale_p)
    x = np.ones(4, np.float32)
    assert "stablehlo.tanh" in _ops(clip.bind, x, platform="cuda")
    with pytest.raises(NotImplementedError, match="MLIR translation rule for primitive 'clip' not found for platform cpu"):
        _ops(clip.bind, x, platform="cpu")
    assert "stablehlo.multiply" in _ops(scale.bind, x, platform="cpu")
    with pytest.raises(NotImplementedError, match="not found for platform cuda"):
        _ops(scale.bind, x, platform="cuda")


def test_multiple_results_positional_with_avals_and_forwarding_rule(migrated) -> None:
    split = migrated.split_p
    split.def_abstract_eval(lambda a: [jax.core.ShapedArray((a.shape[0] // 2,), a.dtype)] * 2)
    x = np.arange(8, dtype=np.float32)
    assert _ops(lambda v: split.bind(v), x).count("stablehlo.slice") == 2

    # translations_with_avals inside a factory
    neg = migrated.custom_primitive("neg", lambda v: -v)
    neg.def_abstract_eval(lambda a: a)
    assert "stablehlo.negate" in _ops(neg.bind, x)

    # a rule that only forwarded to xla.lower_fun
    flat = migrated.FlatPrimitive("sincos", lambda v: [jax.numpy.sin(v), jax.numpy.cos(v)])
    flat.def_abstract_eval(lambda a: [a, a])
    ops = _ops(lambda v: flat.bind(v), x)
    assert "stablehlo.sine" in ops and "stablehlo.cosine" in ops


def test_forms_without_a_counterpart_stay_manual_with_every_line_reported() -> None:
    path = os.path.join(FOLDER, "lower_fun_manual.py")
    with open(path, "rb") as fh:
        source = fh.read()
    result = rewrite_source(source, path, ["--select", "xla-translation-rule"])
    assert result.error is None and result.updated is None
    manual = [c for c in result.changes if c.safety is Safety.MANUAL]
    lines = sorted(c.line for c in manual)
    # instantiate=, backend=, and the shared forwarding rule: its registration and its call.
    assert lines == [16, 19, 23, 26]
    assert any("`instantiate=`" in c.message for c in manual)
    assert any("`backend=`" in c.message for c in manual)
    assert all("mlir.register_lowering" in c.message for c in manual)


def test_old_instantiate_signature_of_a_multiple_results_primitive_lowers_its_outputs() -> None:
    path = os.path.join(FOLDER, "lower_fun_instantiate.py")
    with open(path, "rb") as fh:
        source = fh.read()
    result = rewrite_source(source, path, ["--select", "xla-translation-rule,core-primitive"])
    assert result.error is None and b"xla" not in result.updated.split(b'"""', 2)[2]
    module = types.ModuleType("migrated_lower_fun_instantiate")
    exec(compile(result.updated, path, "exec"), module.__dict__)
    x = jax.ShapeDtypeStruct((3,), np.float32)
    assert "stablehlo.multiply" in _ops(lambda v: module.detached_p.bind(v)[0], x)
    (out,) = jax.jit(lambda v: module.detached_p.bind(v))(np.arange(3, dtype=np.float32))
    assert np.array_equal(out, np.arange(3, dtype=np.float32))
