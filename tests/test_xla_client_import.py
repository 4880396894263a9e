"""xla-client-import's replacements name what the deleted module served, on the installed jax."""

from __future__ import annotations

import importlib
import os

import pytest

from codemods.rules import xla_client_import as rule
from tests.helpers import TESTDATA, rewrite_source

jax = pytest.importorskip("jax")


def _resolve(qualified: str):
    module, _, name = qualified.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_every_replacement_exists_here() -> None:
    for new in (*rule.REPLACEMENTS.values(), *rule.DEEP_REPLACEMENTS.values()):
        assert _resolve(new) is not None, new


def test_extension_mlir_helpers_are_the_functions_xla_client_exposed() -> None:
    # xla_client._xla was the compiled extension, now jax._src.lib._jax: same functions.
    from jax._src.lib import _jax

    for legacy, new in rule.DEEP_REPLACEMENTS.items():
        assert _resolve(new) is getattr(_jax.mlir, legacy.rpartition(".")[2]), legacy


def test_extension_mlir_helpers_stay_for_a_target_without_them() -> None:
    path = os.path.join(TESTDATA, "rules", "xla-client-import", "portable_artifact.py")
    with open(path, "rb") as fh:
        source = fh.read()
    result = rewrite_source(source, path, ["--select", "xla-client-import", "--target-jax", "0.6.2"])
    assert result.updated is None
    # The import stays, reported, for the two sites.
    assert sorted((c.line, c.safety.value) for c in result.changes) == [(5, "manual"), (11, "manual"), (21, "manual")]


def test_two_aliases_of_one_deleted_module_both_go_in_one_run() -> None:
    """``import jax.lib.xla_client as xla_client`` beside ``... as xc``: LibCST's import
    remover keeps one alias per module, so each goes in its own pass; none is left for a
    second run to remove."""
    source = (
        b"import jax\n"
        b"import jax.lib.xla_client as xla_client\n"
        b"import jax.lib.xla_client as xc\n"
        b"\n"
        b"for name, fn in targets.items():\n"
        b"    xla_client.register_custom_call_target(name, fn, platform='cpu')\n"
        b"    xc.register_custom_call_target(name + '_copy', fn, platform='cpu')\n"
        b"del xla_client, xc\n"
    )
    result = rewrite_source(source, "m.py", [])
    assert result.error is None and result.updated is not None
    assert b"xla_client" not in result.updated and b"xc" not in result.updated
    assert result.updated.count(b"jax.ffi.register_ffi_target(") == 2
    assert rewrite_source(result.updated, "m.py", []).updated is None


def test_a_dotted_import_beside_another_on_its_line_goes_alone() -> None:
    """``import jax.lib.xla_bridge; import jax.lib.xla_client``: the bridge's uses move to
    jax, so its import goes in the same run; the client, kept for a manual site, stays."""
    source = (
        b"import jax\n"
        b"import jax.lib.xla_bridge; import jax.lib.xla_client\n"
        b"\n"
        b"\n"
        b"def platform():\n"
        b"    return jax.lib.xla_bridge.process_index()\n"
        b"\n"
        b"\n"
        b"def shape_of(x):\n"
        b"    return jax.lib.xla_client.Shape.array_shape(x.dtype, x.shape)\n"
    )
    result = rewrite_source(source, "m.py", [])
    assert result.error is None and result.updated is not None
    assert result.updated.splitlines()[:2] == [b"import jax", b"import jax.lib.xla_client"]
    assert b"return jax.process_index()" in result.updated
    again = rewrite_source(result.updated, "m.py", [])
    assert again.updated is None and not [c for c in again.changes if c.safety.value != "manual"]


def test_the_bridge_module_read_as_an_object_is_reported() -> None:
    """``setattr(jax.lib.xla_bridge, ...)`` went neither rewritten nor reported (found by
    benchmarks/fuzz.py on alpa): the module is gone, nothing replaces it as an object."""
    path = os.path.join(TESTDATA, "rules", "xla-client-import", "bridge_module_patched.py")
    with open(path, "rb") as f:
        source = f.read()
    result = rewrite_source(source, path, [])
    assert result.updated is None
    assert [(c.rule, c.line, c.safety.value) for c in result.changes] == [("xla-client-import", 10, "manual")]
    assert "jax.extend.backend (get_backend, backends)" in result.changes[0].message
