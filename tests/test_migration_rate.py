"""benchmarks/migration_rate.py: the before/after count of missing-jax-API references over
a folder of repositories, and the bar it checks (leftovers reported, second run a no-op)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import shutil

import pytest

from tests.helpers import ROOT, TESTDATA

pytest.importorskip("jax")
_spec = importlib.util.spec_from_file_location("migration_rate", os.path.join(ROOT, "benchmarks", "migration_rate.py"))
migration_rate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(migration_rate)


def _run(corpus: str, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = migration_rate.main([corpus, *args])
    return code, out.getvalue()


def test_counts_before_and_after_and_every_leftover_is_reported(tmp_path) -> None:
    for repo in ("split_rules", "xla_builder_helpers"):
        shutil.copytree(os.path.join(TESTDATA, "repos", repo), tmp_path / repo)
    untouched = migration_rate._digest(str(tmp_path))
    code, out = _run(str(tmp_path), "--show")
    lines = out.splitlines()
    assert "xla_builder_helpers: 5 -> 0" in lines
    assert "split_rules: 6 -> 2" in lines
    assert lines[-1] == "TOTAL 11 -> 2 (81.8% removed)" and code == 0
    assert "NOT REPORTED" not in out
    assert "[xla-translation-rule manual]" in out  # --show: the entry behind a leftover
    assert migration_rate._digest(str(tmp_path)) == untouched  # the copies were migrated, not the corpus


def test_a_leftover_no_report_entry_names_is_a_problem(tmp_path) -> None:
    repo = tmp_path / "one"
    repo.mkdir()
    (repo / "m.py").write_text("import jax\n\nx = jax.xla_computation\n")
    code, out = _run(str(tmp_path), "--", "--ignore", "removed-jax-api")
    assert "one: 1 -> 1" in out and "[NOT REPORTED]" in out
    assert "PROBLEM one: m.py:3 jax.xla_computation is left and not in the report" in out and code == 1


def test_a_leftover_is_accounted_to_the_manual_entry_of_its_line(tmp_path) -> None:
    path = str(tmp_path / "m.py")
    unsafe = {"rule": "backend-config", "safety": "unsafe", "line": 7, "before": "opaque",
              "message": "cannot prove the type of backend_config passed to jax.interpreters.mlir.custom_call"}
    elsewhere = {"rule": "custom-call-api", "safety": "manual", "line": 3, "before": "mlir.custom_call(a)",
                 "message": "jax.interpreters.mlir.custom_call sits inside a compatibility guard"}
    here = {"rule": "custom-call-api", "safety": "manual", "line": 7, "before": "mlir.custom_call(b)",
            "message": "jax.interpreters.mlir.custom_call: no lowering rule in reach"}
    pending = {os.path.realpath(path): [unsafe, elsewhere, here]}
    reference = {"path": path, "line": 7, "name": "jax.interpreters.mlir.custom_call"}
    assert migration_rate._accounting(reference, pending) is here
    assert migration_rate._accounting({**reference, "line": 3}, pending) is elsewhere
    assert migration_rate._accounting({**reference, "name": "jax.lib.xla_client"}, pending) is None


def test_a_leftover_is_matched_on_the_line_it_had_before_the_rewrite(tmp_path) -> None:
    path = tmp_path / "m.py"
    before = b"import jax\nfrom jax.lib import xla_client\n\nA = jax.xla_computation\nB = jax.xla_computation\n"
    # The rewrite wrote two import lines for the one it replaced: the leftovers moved down one.
    path.write_bytes(b"import jax\nimport jax.ffi\nimport numpy\n\nA = jax.xla_computation\nB = jax.xla_computation\n")
    sources = {os.path.realpath(str(path)): before}
    reference = {"path": str(path), "line": 6, "name": "jax.xla_computation"}
    assert migration_rate._original_line(reference, sources) == 5
    assert migration_rate._original_line({**reference, "line": 5}, sources) == 4
    assert migration_rate._original_line({**reference, "line": 2}, sources) == 2  # written in place of line 2
    assert migration_rate._original_line({**reference, "path": str(tmp_path / "new.py")}, sources) == 6
