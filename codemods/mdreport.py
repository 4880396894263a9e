"""``--report-md FILE``: the migration report a person reads after a run.

It holds, in this order: what was run and the totals; changes counted per rule and
safety; every manual follow-up with its guidance (the work left to do); the changes
of each file; files that could not be processed; and, when verification results are
given, the table of verified sites.
"""

from __future__ import annotations

import collections
from typing import Optional, Sequence

from codemods.engine import SUPPRESSED_PREFIX
from codemods.formats import relative_path



def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _code(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return "`" + text.replace("`", "'") + "`" if text else ""


def _state(command: str, change: dict) -> str:
    if change["message"].startswith(SUPPRESSED_PREFIX):
        return "suppressed"
    if change["safety"] == "manual":
        return "manual"
    if change["applied"]:
        return "applied" if command == "apply" else "pending"
    return "needs --unsafe-fixes" if change["safety"] == "unsafe" else "not applied"


def render_markdown(data: Optional[dict], sites: Optional[Sequence[dict]] = None, title: str = "ccmigrate migration report") -> str:
    """The Markdown report of one JSON report (and of verification ``sites``, if any).

    ``data`` is ``None`` for ``ccmigrate verify`` on its own: only the verification table.
    """
    if data is None:
        return "\n".join([f"# {title}", "", *_verification(sites or [])])
    command = data.get("command", "diff")
    summary = data["summary"]
    out: list[str] = [f"# {title}", ""]
    verb = "rewritten" if command == "apply" else "with pending changes"
    out += [
        f"Command: `ccmigrate {command}`. "
        f"{summary['files_scanned']} file(s) scanned, {summary['files_changed']} {verb}, "
        f"{summary['files_failed']} failed; {summary['applied']} change(s) "
        f"{'applied' if command == 'apply' else 'ready to apply'}.",
        "",
    ]
    if command != "apply":
        out += ["Nothing was written: this report shows what `ccmigrate apply` would do.", ""]

    per_rule: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for entry in data["files"]:
        for change in entry["changes"]:
            per_rule[change["rule"]][change["safety"]] += 1
            per_rule[change["rule"]]["applied"] += change["applied"]
    out += ["## Changes per rule", ""]
    if per_rule:
        out += ["| rule | safe | unsafe | manual | applied |", "| --- | ---: | ---: | ---: | ---: |"]
        for rule in sorted(per_rule):
            c = per_rule[rule]
            out.append(f"| {rule} | {c['safe']} | {c['unsafe']} | {c['manual']} | {c['applied']} |")
        totals = summary["changes"]
        out.append(f"| **total** | {totals['safe']} | {totals['unsafe']} | {totals['manual']} | {summary['applied']} |")
    else:
        out.append("No legacy custom-call site found.")
    out.append("")

    # Manual findings, and unsafe fixes left unapplied: both wait for a person.
    follow_ups = [
        (entry["path"], change)
        for entry in data["files"]
        for change in entry["changes"]
        if not change["message"].startswith(SUPPRESSED_PREFIX)
        and (change["safety"] == "manual" or (change["safety"] == "unsafe" and not change["applied"]))
    ]
    out += ["## Manual follow-ups", ""]
    if follow_ups:
        out.append("These sites need a person: ccmigrate cannot rewrite them faithfully on its own.")
        out.append("")
        for path, change in follow_ups:
            kind = "" if change["safety"] == "manual" else " (unsafe fix: review it, then rerun with `--unsafe-fixes` or fix by hand)"
            out.append(f"- [ ] **{path}:{change['line']}** `{change['rule']}`{kind}: {_cell(change['message'])}")
            if change.get("before"):
                out.append(f"  - site: {_code(change['before'])}")
    else:
        out.append("None.")
    out.append("")

    out += ["## Changes per file", ""]
    changed = [entry for entry in data["files"] if entry["changes"]]
    if not changed:
        out += ["None.", ""]
    for entry in changed:
        out += [f"### {entry['path']}", "", "| line | rule | safety | state | message |", "| ---: | --- | --- | --- | --- |"]
        for change in entry["changes"]:
            message = _cell(change["message"])
            if change.get("kernel_receives") and change["applied"]:
                receives = "now receives" if command == "apply" else "will receive"
                message += f"; the kernel {receives} {_cell(change['kernel_receives'])}"
            out.append(f"| {change['line']} | {change['rule']} | {change['safety']} | {_state(command, change)} | {message} |")
        out.append("")

    failed = [entry for entry in data["files"] if entry.get("error")]
    if failed:
        out += ["## Files not processed", ""]
        out += [f"- {entry['path']}: {_cell(entry['error'])}" for entry in failed]
        out.append("")

    if sites:
        out += _verification(sites)
    return "\n".join(out)


def _verification(sites: Sequence[dict]) -> list[str]:
    out = ["## Verification", ""]
    if not sites:
        return out + ["No custom-call site found.", ""]
    out += ["| site | target | platform | status | backend_config preserved | error |", "| --- | --- | --- | --- | --- | --- |"]
    for site in sites:
        preserved = {True: "yes", False: "**no**", None: "n/a"}.get(site.get("config_preserved"), "n/a")
        detail = " ".join(x for x in (site.get("error") or "", site.get("note") or "") if x)
        out.append(
            f"| {relative_path(site['path'])}:{site.get('line', '')} | {_cell(site.get('target') or '?')} | "
            f"{_cell(site.get('platform') or 'default')} | {_cell(site.get('status', ''))} | {preserved} | {_cell(detail)} |"
        )
    out.append("")
    return out


def write_markdown(path: str, data: Optional[dict], sites: Optional[Sequence[dict]] = None) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(render_markdown(data, sites))
