"""The command line as a user meets it: exit codes, messages, reports, git safety."""

from __future__ import annotations

import json
import os
import stat
import subprocess

import pytest

from tests.helpers import ccmigrate

BROKEN = b'''from jax._src.interpreters import mlir


def lower(ctx, x):
    return mlir.custom_call("k", result_types=[], operands=[x], backend_config={"b": 1, "a": 2})
'''
FIXED = b'''from jax._src.interpreters import mlir
import json


def lower(ctx, x):
    return mlir.custom_call("k", result_types=[], operands=[x], backend_config=json.dumps({"b": 1, "a": 2}, sort_keys=True, separators=(",", ":")))
'''
VALID = b'''from jax._src.interpreters import mlir


def lower(ctx, x):
    return mlir.custom_call("k", result_types=[], operands=[x], backend_config="{}")
'''


def _write(path, data: bytes, mode=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if mode is not None:
        path.chmod(mode)
    return path


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=cwd, check=True, capture_output=True)


def test_diff_writes_nothing_and_exits_1_when_changes_pending(tmp_path):
    broken = _write(tmp_path / "pkg" / "ops.py", BROKEN)
    valid = _write(tmp_path / "pkg" / "valid.py", VALID)
    result = ccmigrate("diff", str(tmp_path))
    assert result.returncode == 1, result.stderr
    assert f"--- {broken}" in result.stdout and f"+++ {broken}" in result.stdout
    assert '+    return mlir.custom_call("k", result_types=[], operands=[x], backend_config=json.dumps(' in result.stdout
    assert str(valid) not in result.stdout
    assert "1 would be rewritten" in result.stderr
    assert broken.read_bytes() == BROKEN


def test_apply_rewrites_keeps_mode_and_second_run_changes_nothing(tmp_path):
    broken = _write(tmp_path / "ops.py", BROKEN, mode=0o751)
    first = ccmigrate("apply", str(tmp_path))
    assert first.returncode == 0, first.stderr
    assert broken.read_bytes() == FIXED
    assert stat.S_IMODE(broken.stat().st_mode) == 0o751
    mtime = broken.stat().st_mtime_ns
    second = ccmigrate("apply", str(tmp_path))
    assert second.returncode == 0
    assert broken.stat().st_mtime_ns == mtime, "an unchanged file must not be written"
    assert ccmigrate("diff", str(tmp_path)).returncode == 0
    assert not [p for p in os.listdir(tmp_path) if p != "ops.py"], "no temporary file left"


def test_missing_path_and_bad_file_are_one_line_each_and_the_run_goes_on(tmp_path):
    broken = _write(tmp_path / "ops.py", BROKEN)
    bad = _write(tmp_path / "bad.py", b"def f(:\n    backend_config = {}\n")
    missing = tmp_path / "missing.py"
    result = ccmigrate("apply", str(tmp_path), str(missing))
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith(str(tmp_path)) and ": " in line and "backend-config" not in line]
    assert f"{missing}: no such file or directory" in errors
    assert any(line.startswith(f"{bad}: syntax error at line 1") for line in errors)
    assert len(errors) == 2
    assert broken.read_bytes() == FIXED
    assert bad.read_bytes() == b"def f(:\n    backend_config = {}\n"


def test_report_json_lists_each_change(tmp_path):
    _write(tmp_path / "ops.py", BROKEN)
    report_path = tmp_path / "out" / "report.json"
    report_path.parent.mkdir()
    result = ccmigrate("diff", str(tmp_path / "ops.py"), "--report", str(report_path))
    assert result.returncode == 1
    data = json.loads(report_path.read_text())
    assert data["command"] == "diff" and data["summary"]["files_changed"] == 1
    (change,) = data["files"][0]["changes"]
    assert change["rule"] == "backend-config"
    assert (change["line"], change["column"]) == (5, 80)
    assert change["safety"] == "safe" and change["applied"] is True
    assert change["before"] == '{"b": 1, "a": 2}'
    assert change["after"] == 'json.dumps({"b": 1, "a": 2}, sort_keys=True, separators=(",", ":"))'
    assert "JSON string" in change["kernel_receives"]


def test_select_ignore_and_unknown_rule(tmp_path):
    broken = _write(tmp_path / "ops.py", BROKEN)
    assert ccmigrate("diff", str(broken), "--ignore", "backend-config").returncode == 0
    assert ccmigrate("diff", str(broken), "--select", "backend-config").returncode == 1
    unknown = ccmigrate("diff", str(broken), "--select", "no-such-rule")
    assert unknown.returncode == 2 and "unknown rule(s): no-such-rule" in unknown.stderr


def test_rules_command_lists_backend_config():
    result = ccmigrate("rules")
    assert result.returncode == 0
    assert any(line.startswith("backend-config") for line in result.stdout.splitlines())


def test_apply_refuses_dirty_files_in_git_unless_allowed(tmp_path):
    _git(tmp_path, "init", "-q")
    committed = _write(tmp_path / "committed.py", BROKEN)
    _git(tmp_path, "add", "committed.py")
    _git(tmp_path, "commit", "-qm", "x")
    dirty = _write(tmp_path / "dirty.py", BROKEN)  # untracked counts as uncommitted
    result = ccmigrate("apply", str(tmp_path))
    assert result.returncode == 2
    assert f"{dirty}: has uncommitted changes" in result.stderr
    assert dirty.read_bytes() == BROKEN
    assert committed.read_bytes() == FIXED
    allowed = ccmigrate("apply", "--allow-dirty", str(tmp_path))
    assert allowed.returncode == 0, allowed.stderr
    assert dirty.read_bytes() == FIXED


def test_discovery_skips_gitignored_venv_and_excluded(tmp_path):
    _git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("generated/\n")
    _write(tmp_path / "generated" / "g.py", BROKEN)
    _write(tmp_path / ".venv" / "lib" / "v.py", BROKEN)
    _write(tmp_path / "node_modules" / "n.py", BROKEN)
    _write(tmp_path / "third_party" / "t.py", BROKEN)
    _write(tmp_path / "env" / "pyvenv.cfg", b"home = /usr/bin\n")
    _write(tmp_path / "env" / "lib" / "e.py", BROKEN)
    kept = _write(tmp_path / "src" / "k.py", BROKEN)
    # A package named ``env`` (no pyvenv.cfg) is code like any other.
    package = _write(tmp_path / "src" / "env" / "ops.py", BROKEN)
    result = ccmigrate("diff", str(tmp_path), "--exclude", "third_party")
    assert result.returncode == 1
    changed = [line[4:] for line in result.stdout.splitlines() if line.startswith("--- ")]
    assert sorted(changed) == sorted([str(kept), str(package)])


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_parallel_and_serial_runs_agree(tmp_path, jobs):
    for i in range(6):
        _write(tmp_path / f"m{i}.py", BROKEN if i % 2 else VALID)
    result = ccmigrate("diff", "-j", jobs, str(tmp_path))
    assert result.returncode == 1
    assert [line for line in result.stdout.splitlines() if line.startswith("--- ")] == [
        f"--- {tmp_path / f'm{i}.py'}" for i in (1, 3, 5)
    ]


def test_a_target_newer_than_the_installed_jax_is_said_once_and_the_run_goes_on(tmp_path):
    """What is removed is read off the installed jax: a later target (jax 0.11 and newer
    need Python 3.12) cannot be checked here, and the run says so on one line."""
    _write(tmp_path / "m.py", b"from jax.abstract_arrays import abstract_token\nTOKEN = abstract_token\n")
    later = ccmigrate("diff", "--target-jax", "99.1", str(tmp_path / "m.py"))
    notices = [line for line in later.stderr.splitlines() if "is newer than the installed jax" in line]
    assert len(notices) == 1 and notices[0].startswith("ccmigrate: --target-jax 99.1.0 is newer than the installed jax ")
    assert later.returncode == 1 and "+from jax.ffi import abstract_token" in later.stdout
    here = ccmigrate("diff", str(tmp_path / "m.py"))
    assert "is newer than the installed jax" not in here.stderr
