"""[tool.ccmigrate] in pyproject.toml: found by walking up, honoured, overridden by flags,
and rejected with the key's name when misspelt."""

from __future__ import annotations

import json

import pytest

from codemods import config
from codemods.cli import main
from tests.samples import MIXED, ONE


def _project(tmp_path, table: str):
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n[tool.ccmigrate]\n{table}\n")
    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "mixed.py").write_bytes(MIXED)
    (src / "vendored").mkdir()
    (src / "vendored" / "one.py").write_bytes(ONE)
    return src


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _report(capsys, *argv):
    code, out, err = _run(capsys, "diff", "--output-format", "json", *argv)
    return code, json.loads(out) if out else None, err


def test_settings_found_by_walking_up_and_honoured(tmp_path, capsys):
    src = _project(tmp_path, 'exclude = ["vendored"]\nunsafe-fixes = true\ntarget-jax = "0.6"\nverify = { entry = "pkg.ops:lower" }\nplatforms = ["cpu"]')
    code, data, err = _report(capsys, str(src))
    assert code == 1, err
    assert [f["path"] for f in data["files"]] == [str(src / "mixed.py")]  # vendored/ excluded
    unsafe = [c for c in data["files"][0]["changes"] if c["safety"] == "unsafe"]
    assert unsafe and all(c["applied"] for c in unsafe)  # unsafe-fixes = true
    loaded = config.load([str(src)])
    assert loaded.path == str(tmp_path / "pyproject.toml")
    assert loaded.target_jax == (0, 6, 0) and loaded.platforms == ("cpu",)
    assert loaded.verify == {"entry": "pkg.ops:lower"}  # kept as written for `ccmigrate verify`


def test_command_line_flags_win(tmp_path, capsys):
    src = _project(tmp_path, 'exclude = ["vendored"]\nunsafe-fixes = true\nignore = ["backend-config"]')
    code, data, err = _report(capsys, str(src), "--no-unsafe-fixes", "--ignore", "", "--exclude", "nothing")
    assert code == 1, err
    paths = {f["path"] for f in data["files"]}
    assert paths == {str(src / "mixed.py"), str(src / "vendored" / "one.py")}
    assert not any(c["applied"] for f in data["files"] for c in f["changes"] if c["safety"] == "unsafe")


def _rules_reported(data) -> set[str]:
    return {c["rule"] for f in data["files"] for c in f["changes"]}


def test_select_and_ignore_from_config(tmp_path, capsys):
    src = _project(tmp_path, 'ignore = ["backend-config"]')
    _, data, err = _report(capsys, str(src))
    assert data["summary"]["files_scanned"] == 2, err
    assert "backend-config" not in _rules_reported(data)
    (tmp_path / "other").mkdir()
    src = _project(tmp_path / "other", 'select = ["backend-config"]')
    _, data, err = _report(capsys, str(src))
    assert _rules_reported(data) == {"backend-config"}, err


def test_unknown_key_is_an_error_naming_it(tmp_path, capsys):
    src = _project(tmp_path, 'unsafe_fixes = true')
    code, out, err = _run(capsys, "diff", str(src))
    assert code == 2 and out == ""
    assert "unknown key 'unsafe_fixes' in [tool.ccmigrate] (did you mean 'unsafe-fixes'?)" in err
    assert str(tmp_path / "pyproject.toml") in err


@pytest.mark.parametrize(
    "table, message",
    [
        ('select = "backend-config"\nslect = []', "unknown key 'slect'"),
        ("unsafe-fixes = 1", "'unsafe-fixes' must be true or false"),
        ("exclude = [1]", "'exclude' must be a list of strings"),
        ('target-jax = "latest"', "'target-jax': not a jax version"),
        ('select = ["no-such-rule"]', "unknown rule(s): no-such-rule"),
    ],
)
def test_bad_values_are_rejected(tmp_path, capsys, table, message):
    src = _project(tmp_path, table)
    code, _, err = _run(capsys, "diff", str(src))
    assert code == 2 and message in err


def test_pyproject_without_the_table_is_passed_over(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ccmigrate]\nannotate = true\n")
    inner = tmp_path / "sub"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n")
    assert config.load([str(inner)]).annotate is True


def test_invalid_toml_is_reported(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text("[tool.ccmigrate\n")
    (tmp_path / "a.py").write_bytes(ONE)
    code, _, err = _run(capsys, "diff", str(tmp_path / "a.py"))
    assert code == 2 and "not valid TOML" in err
