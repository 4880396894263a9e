"""--output-format json|sarif|github, the verification-site formatters, and colour.

SARIF logs are validated against the SARIF 2.1.0 JSON schema shipped in
testdata/sarif/ (the one the SARIF SDK's validator uses).
"""

from __future__ import annotations

import io
import json
import os

import jsonschema
import pytest

from codemods import formats
from codemods.cli import main
from tests.helpers import TESTDATA
from tests.samples import MIXED, ONE

with open(os.path.join(TESTDATA, "sarif", "sarif-schema-2.1.0.json"), encoding="utf-8") as _fh:
    SARIF_SCHEMA = json.load(_fh)


class Ran:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def cli(capsys, monkeypatch):
    """The command line, run in this process (no interpreter start-up per call)."""

    def run(*argv: str, cwd) -> Ran:
        monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = main(list(argv))
        out, err = capsys.readouterr()
        return Ran(code, out, err)

    return run


def validate_sarif(log: dict) -> None:
    validator_class = jsonschema.validators.validator_for(SARIF_SCHEMA)
    validator = validator_class(SARIF_SCHEMA, format_checker=validator_class.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("proj")
    (root / "pkg").mkdir()
    (root / "pkg" / "mixed.py").write_bytes(MIXED)
    (root / "pkg" / "one.py").write_bytes(ONE)
    (root / "pkg" / "bad.py").write_bytes(b"def f(:\n    backend_config = 1\n")
    return root


@pytest.fixture
def diff_json(project, cli):
    result = cli("diff", "pkg", "--output-format", "json", "--report", "report.json", cwd=project)
    assert result.returncode == 2, result.stderr  # bad.py does not parse
    return json.loads(result.stdout), result


def test_json_output_is_the_report(project, diff_json):
    data, result = diff_json
    with open(project / "report.json", encoding="utf-8") as fh:
        assert json.load(fh) == data
    assert data["summary"]["changes"] == {"safe": 4, "unsafe": 1, "manual": 1}
    assert "pkg/bad.py: syntax error at line 1" in result.stderr
    assert "--- " not in result.stdout  # no diff mixed into machine output


def test_sarif_output_is_valid_and_complete(project, diff_json, cli):
    data, _ = diff_json
    result = cli("diff", "pkg", "--output-format", "sarif", "-q", cwd=project)
    log = json.loads(result.stdout)
    validate_sarif(log)
    run = log["runs"][0]
    assert run["tool"]["driver"]["name"] == "ccmigrate"
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["backend-config"]
    by_line = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                r["locations"][0]["physicalLocation"]["region"]["startLine"]): r for r in run["results"]}
    assert len(run["results"]) == sum(len(f["changes"]) for f in data["files"])
    safe = by_line[("pkg/mixed.py", 6)]
    assert safe["level"] == "warning" and safe["properties"]["safety"] == "safe"
    replacement = safe["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement["insertedContent"]["text"].startswith('json.dumps({"a": 1}')
    assert replacement["deletedRegion"] == {"startLine": 6, "startColumn": 74, "endLine": 6, "endColumn": 82}
    assert by_line[("pkg/mixed.py", 9)]["suppressions"] == [{"kind": "inSource"}]
    assert by_line[("pkg/mixed.py", 14)]["properties"]["safety"] == "manual"
    assert "fixes" not in by_line[("pkg/mixed.py", 14)]
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    [failure] = invocation["toolExecutionNotifications"]
    assert failure["level"] == "error" and failure["message"]["text"].startswith("syntax error at line 1")


def test_sarif_after_apply_marks_written_changes_as_notes(tmp_path, cli):
    (tmp_path / "one.py").write_bytes(ONE)
    result = cli("apply", "one.py", "--allow-dirty", "--output-format", "sarif", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    log = json.loads(result.stdout)
    validate_sarif(log)
    [res] = log["runs"][0]["results"]
    assert res["level"] == "note" and res["properties"]["applied"] is True and "fixes" not in res


def test_github_annotations(project, cli):
    result = cli("diff", "pkg", "--output-format", "github", "-q", cwd=project)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("::warning file=pkg/mixed.py,line=6,col=74,endLine=6,endColumn=82,title=ccmigrate backend-config [safe]::dict literal")
    assert not any("line=9," in line for line in lines)  # the suppressed site
    assert any(line.startswith("::warning file=pkg/mixed.py,line=14,") and "[manual]" in line for line in lines)
    assert lines[-1].startswith("::error file=pkg/bad.py,title=ccmigrate::syntax error at line 1")
    assert result.returncode == 2


def test_workflow_command_escaping():
    line = formats.workflow_command("warning", "50% done\nnext", "a,b:c.py", line=3, title="x: y, z")
    assert line == "::warning file=a%2Cb%3Ac.py,line=3,title=x%3A y%2C z::50%25 done%0Anext"


SITES = [
    {"path": "pkg/ops.py", "line": 12, "target": "scale_f32", "platform": "cpu", "status": "verified", "error": None, "config_preserved": True},
    {"path": "pkg/ops.py", "line": 30, "target": "gemm", "platform": "cuda", "status": "failed",
     "error": "ValueError: custom_call backend_config unexpected type", "config_preserved": None},
    {"path": "pkg/ops.py", "line": 41, "target": "norm", "platform": "cpu", "status": "verified", "error": None, "config_preserved": False},
    {"path": "pkg/ops.py", "line": 50, "end_line": 52, "target": "fused", "platform": None, "status": "unreached", "error": None,
     "config_preserved": None, "note": "add an entry point under [tool.ccmigrate.verify]"},
    {"path": "pkg/ops.py", "line": 60, "target": "other", "platform": None, "status": "static", "error": None, "config_preserved": None},
]


def test_site_formatters():
    text = formats.sites_text(SITES)
    assert text[0] == "pkg/ops.py:12: scale_f32 [cpu] verified; config preserved"
    assert text[1].endswith("gemm [cuda] failed: ValueError: custom_call backend_config unexpected type")
    github = formats.sites_github(SITES)
    assert len(github) == 4  # the site that verified needs no annotation
    assert github[0].startswith("::error file=pkg/ops.py,line=30,title=ccmigrate verify cuda::gemm on cuda: failed")
    assert "backend_config not preserved" in github[1] and github[1].startswith("::error")
    assert github[2].startswith("::warning file=pkg/ops.py,line=50,endLine=52,title=ccmigrate verify::fused on the default platform: unreached; add an entry point")
    assert github[3].startswith("::notice")
    log = formats.sites_sarif(SITES)
    validate_sarif(log)
    results = log["runs"][0]["results"]
    assert [r["kind"] for r in results] == ["pass", "fail", "fail", "open", "notApplicable"]
    assert [r["level"] for r in results] == ["none", "error", "error", "warning", "note"]
    assert json.loads(formats.render_sites(SITES, "json")) == {"sites": SITES}


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def test_colour_only_on_a_tty_and_never_with_no_color():
    assert formats.use_colour(_Stream(True), {"TERM": "xterm"})
    assert not formats.use_colour(_Stream(False), {"TERM": "xterm"})
    assert not formats.use_colour(_Stream(True), {"TERM": "xterm", "NO_COLOR": "1"})
    assert formats.use_colour(_Stream(True), {"TERM": "xterm", "NO_COLOR": ""})  # empty means unset
    coloured = formats.colour_diff("--- a\n+++ a\n@@ -1 +1 @@\n-old\n+new\n")
    assert "\x1b[" in coloured and "+new" in coloured


def test_piped_diff_has_no_colour(project, cli):
    result = cli("diff", "pkg/one.py", cwd=project)
    assert "\x1b[" not in result.stdout and "+++ pkg/one.py" in result.stdout


def test_verify_command_output_formats_and_markdown(tmp_path, cli):
    # --static lists the sites without importing anything: cheap, and the same records.
    (tmp_path / "ops.py").write_bytes(MIXED)
    github = cli("verify", "--static", "ops.py", "--output-format", "github", "--report-md", "v.md", cwd=tmp_path)
    assert github.returncode == 0, github.stderr
    lines = github.stdout.splitlines()
    assert len(lines) == 5 and lines[0].startswith("::notice file=ops.py,line=6,endLine=6,title=ccmigrate verify::a on the default platform: static")
    table = (tmp_path / "v.md").read_text().split("## Verification")[1]
    assert "| ops.py:14 | e | default | static | n/a |  |" in table
    sarif = cli("verify", "--static", "ops.py", "--output-format", "sarif", cwd=tmp_path)
    log = json.loads(sarif.stdout)
    validate_sarif(log)
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in log["runs"][0]["results"]] == [6, 7, 8, 9, 14]


def test_apply_verify_sarif_is_one_log_with_two_runs(project, cli):
    data = cli("diff", "pkg/one.py", "--output-format", "json", cwd=project).stdout
    log = formats.combined_sarif(json.loads(data), SITES)
    validate_sarif(log)
    assert [run["tool"]["driver"]["rules"][0]["id"] for run in log["runs"]] == ["backend-config", "verify"]
