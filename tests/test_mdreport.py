"""--report-md: the human migration report."""

from __future__ import annotations

from codemods.cli import main
from codemods.mdreport import render_markdown
from tests.samples import MIXED, ONE


def test_report_of_a_diff_run(tmp_path, capsys, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mixed.py").write_bytes(MIXED)
    (tmp_path / "pkg" / "one.py").write_bytes(ONE)
    (tmp_path / "pkg" / "bad.py").write_bytes(b"backend_config = (\n")
    monkeypatch.chdir(tmp_path)
    assert main(["diff", "pkg", "--report-md", "report.md"]) == 2
    capsys.readouterr()
    text = (tmp_path / "report.md").read_text()
    assert "3 file(s) scanned, 2 with pending changes, 1 failed; 3 change(s) ready to apply." in text
    assert "| backend-config | 4 | 1 | 1 | 3 |" in text
    follow_ups = text.split("## Manual follow-ups")[1].split("## Changes per file")[0]
    # The manual site with its guidance, and the unsafe fix left for review; not the suppressed one.
    assert "- [ ] **pkg/mixed.py:8** `backend-config` (unsafe fix" in follow_ups
    assert "- [ ] **pkg/mixed.py:14** `backend-config`: backend_config `config`" in follow_ups
    assert "pass the values as keyword attributes of the ffi_lowering call" in follow_ups
    assert ":9**" not in follow_ups
    assert "### pkg/mixed.py" in text and "### pkg/one.py" in text
    assert "| 9 | backend-config | safe | suppressed |" in text
    assert "the kernel will receive a JSON string" in text
    assert "## Files not processed" in text and "- pkg/bad.py: syntax error at line 1" in text
    assert "## Verification" not in text


def test_verification_table_when_sites_are_given():
    data = {"command": "apply", "summary": {"files_scanned": 1, "files_changed": 0, "files_failed": 0,
            "changes": {"safe": 0, "unsafe": 0, "manual": 0}, "applied": 0}, "files": []}
    sites = [
        {"path": "ops.py", "line": 3, "target": "scale", "platform": "cpu", "status": "ok", "error": None, "config_preserved": True},
        {"path": "ops.py", "line": 9, "target": "gemm", "platform": "cuda", "status": "failed", "error": "bad | cast", "config_preserved": False},
    ]
    text = render_markdown(data, sites)
    assert "No legacy custom-call site found." in text
    table = text.split("## Verification")[1]
    assert "| ops.py:3 | scale | cpu | ok | yes |  |" in table
    assert "| ops.py:9 | gemm | cuda | failed | **no** | bad \\| cast |" in table
