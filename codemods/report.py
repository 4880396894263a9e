"""Turning results into what people and programs read: diffs, summaries, JSON reports.

JSON report schema (``--report FILE``), version 1::

    {
      "version": 1,
      "tool": "ccmigrate",
      "command": "diff" | "apply",
      "summary": {"files_scanned": int, "files_changed": int, "files_failed": int,
                  "changes": {"safe": int, "unsafe": int, "manual": int}, "applied": int},
      "files": [
        {"path": str, "status": "changed" | "unchanged" | "error", "error": str | null,
         "changes": [
           {"rule": str, "line": int, "column": int, "end_line": int, "end_column": int,
            "safety": "safe" | "unsafe" | "manual", "applied": bool, "message": str,
            "before": str, "after": str | null, "kernel_receives": str | null}
         ]}
      ]
    }

Lines are 1-based, columns 1-based (as in editors). ``applied`` says whether the change
is in the written (``apply``) or shown (``diff``) text.
"""

from __future__ import annotations

import difflib
import json
from typing import Iterable, Sequence

from codemods.engine import FileResult

REPORT_VERSION = 1


def unified_diff(result: FileResult, context: int = 3) -> str:
    """A ``git diff``-style unified diff of one changed file ('' when unchanged)."""
    if not result.changed or result.original is None or result.updated is None:
        return ""
    old = result.original.decode(result.encoding, "replace")
    new = result.updated.decode(result.encoding, "replace")
    text = "\n".join(
        difflib.unified_diff(old.split("\n"), new.split("\n"), fromfile=result.path, tofile=result.path, lineterm="", n=context)
    )
    return text if text.endswith("\n") or not text else text + "\n"


def status_of(result: FileResult) -> str:
    if result.error:
        return "error"
    return "changed" if result.changed else "unchanged"


def summary(results: Sequence[FileResult], scanned: int) -> dict:
    counts = {"safe": 0, "unsafe": 0, "manual": 0}
    applied = 0
    for result in results:
        for change in result.changes:
            counts[change.safety.value] += 1
            applied += change.applied
    return {
        "files_scanned": scanned,
        "files_changed": sum(r.changed and not r.error for r in results),
        "files_failed": sum(bool(r.error) for r in results),
        "changes": counts,
        "applied": applied,
    }


def to_json(results: Sequence[FileResult], scanned: int, command: str) -> dict:
    return {
        "version": REPORT_VERSION,
        "tool": "ccmigrate",
        "command": command,
        "summary": summary(results, scanned),
        "files": [
            {
                "path": r.path,
                "status": status_of(r),
                "error": r.error,
                "changes": [c.to_json() for c in r.changes],
            }
            for r in results
            if r.error or r.changes
        ],
    }


def write_json(path: str, data: dict) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2, sort_keys=False)
        fh.write("\n")


def change_lines(results: Iterable[FileResult]) -> list[str]:
    """One line per finding: ``path:line:col: rule [safety] message``."""
    lines = []
    for result in results:
        for c in result.changes:
            state = "fixed" if c.applied else {"safe": "fix", "unsafe": "unsafe fix (--unsafe-fixes)", "manual": "manual"}[c.safety.value]
            tail = f" -> the kernel now receives {c.kernel_receives}" if c.applied and c.kernel_receives else ""
            lines.append(f"{result.path}:{c.line}:{c.column}: {c.rule} [{state}] {c.message}{tail}")
    return lines


def summary_line(data: dict, verb: str) -> str:
    counts = data["changes"]
    return (
        f"{data['files_scanned']} file(s) scanned, {data['files_changed']} {verb}, "
        f"{data['files_failed']} failed; changes: {counts['safe']} safe, {counts['unsafe']} unsafe, "
        f"{counts['manual']} manual; {data['applied']} applied"
    )
