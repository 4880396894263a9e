"""Output formats: what ``--output-format`` prints, and terminal colour.

Every format is rendered from the JSON report (:func:`codemods.report.to_json`), so a
report read back from disk (a shard's, a merged one) prints exactly like a live run.

* ``text``   - unified diff on stdout, one line per change and a summary on stderr;
* ``json``   - the JSON report on stdout;
* ``sarif``  - a SARIF 2.1.0 log on stdout, for code scanning (GitHub, Azure DevOps...);
* ``github`` - GitHub Actions workflow commands (``::warning file=...,line=...::msg``),
  which the runner turns into annotations on the pull request.

Verification results (``ccmigrate verify``: a list of *site* records with ``path``,
``line``, ``target``, ``platform``, ``status`` (``verified``, ``failed``, ``unreached``,
``static``), ``error`` and ``config_preserved``, optionally ``end_line`` and ``note``)
have formatters of their own at the end of this module.
"""

from __future__ import annotations

import json
import os
from pathlib import PurePath
from typing import Iterable, Mapping, Optional, Sequence, TextIO

from codemods import __version__
from codemods.engine import SUPPRESSED_PREFIX

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


# -- colour ----------------------------------------------------------------------


def use_colour(stream: TextIO, environ: Mapping[str, str] = os.environ) -> bool:
    """Colour only for a terminal, and never when ``NO_COLOR`` is set (no-color.org)."""
    if environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and environ.get("TERM") != "dumb"


def colour_diff(text: str) -> str:
    """ANSI-coloured unified diff (additions green, removals red, hunk headers cyan)."""
    from pygments import highlight
    from pygments.formatters import TerminalFormatter
    from pygments.lexers import DiffLexer

    return highlight(text, DiffLexer(), TerminalFormatter())


def paint(text: str, colour: str, enabled: bool) -> str:
    """``text`` in one of pygments' console colours (``red``, ``yellow``, ``bold``...)."""
    if not enabled:
        return text
    from pygments.console import colorize

    return colorize(colour, text)


SAFETY_COLOUR = {"safe": "green", "unsafe": "yellow", "manual": "magenta"}


# -- the JSON report in other shapes ----------------------------------------------


def render(data: dict, fmt: str) -> str:
    """The report ``data`` as ``json``, ``sarif`` or ``github`` text (ends with a newline)."""
    if fmt == "json":
        return json.dumps(data, indent=2) + "\n"
    if fmt == "sarif":
        return json.dumps(to_sarif(data), indent=2) + "\n"
    if fmt == "github":
        return "".join(line + "\n" for line in github_annotations(data))
    raise ValueError(f"no renderer for format {fmt!r}")


def _changes(data: dict):
    for entry in data["files"]:
        for change in entry["changes"]:
            yield entry, change


def _pending_level(command: str, change: dict) -> str:
    """A change already written by ``apply`` is a note; anything left to do is a warning."""
    return "note" if command == "apply" and change["applied"] else "warning"


def _state(command: str, change: dict) -> str:
    if change["message"].startswith(SUPPRESSED_PREFIX):
        return "suppressed"
    if change["safety"] == "manual":
        return "manual follow-up"
    if change["applied"]:
        return "fixed" if command == "apply" else "fix available"
    return "unsafe fix (--unsafe-fixes)" if change["safety"] == "unsafe" else "fix not applied"


def relative_path(path: str) -> str:
    """``path`` relative to the working directory when it lies below it (as CI expects)."""
    if os.path.isabs(path):
        rel = os.path.relpath(path)
        if not rel.startswith(os.pardir):
            return rel
    return path


def artifact_uri(path: str) -> tuple[str, Optional[str]]:
    """SARIF ``uri`` and ``uriBaseId`` of a file: relative to the source root when possible."""
    path = relative_path(path)
    if os.path.isabs(path):
        return PurePath(path).as_uri(), None
    parts = [p for p in PurePath(path).parts if p != "."]
    from urllib.parse import quote

    return quote("/".join(parts)), "%SRCROOT%"


def _location(path: str, line: int, column: int = 0, end_line: int = 0, end_column: int = 0) -> dict:
    uri, base = artifact_uri(path)
    artifact = {"uri": uri, **({"uriBaseId": base} if base else {})}
    location: dict = {"physicalLocation": {"artifactLocation": artifact}}
    if line >= 1:
        region = {"startLine": line}
        if column >= 1:
            region["startColumn"] = column
        if end_line >= line:
            region["endLine"] = end_line
            if end_column >= 1 and (end_line > line or end_column > column):
                region["endColumn"] = end_column
        location["physicalLocation"]["region"] = region
    return location


def _rule_descriptors(names: Iterable[str]) -> list[dict]:
    from codemods.rules import all_rules

    known = {r.name: r for r in all_rules()}
    descriptors = []
    for name in names:
        rule = known.get(name)
        descriptor: dict = {"id": name}
        if rule is not None:
            descriptor["shortDescription"] = {"text": rule.summary}
            doc = (rule.__doc__ or "").strip()
            if doc:
                descriptor["fullDescription"] = {"text": doc.split("\n\n", 1)[0]}
                descriptor["help"] = {"text": doc}
        descriptor["defaultConfiguration"] = {"level": "warning"}
        descriptors.append(descriptor)
    return descriptors


def to_sarif(data: dict) -> dict:
    """A SARIF 2.1.0 log of one report: one result per change, file failures as notifications."""
    command = data.get("command", "diff")
    rule_ids = sorted({change["rule"] for _, change in _changes(data)})
    index = {name: i for i, name in enumerate(rule_ids)}
    results = []
    for entry, change in _changes(data):
        result: dict = {
            "ruleId": change["rule"],
            "ruleIndex": index[change["rule"]],
            "level": _pending_level(command, change),
            "message": {"text": change["message"]},
            "locations": [
                _location(entry["path"], change["line"], change["column"], change["end_line"], change["end_column"])
            ],
            "properties": {
                "safety": change["safety"],
                "applied": change["applied"],
                "state": _state(command, change),
            },
        }
        if change.get("kernel_receives"):
            result["properties"]["kernelReceives"] = change["kernel_receives"]
        if change["message"].startswith(SUPPRESSED_PREFIX):
            result["suppressions"] = [{"kind": "inSource"}]
        elif change.get("after") is not None and change["line"] >= 1 and not (command == "apply" and change["applied"]):
            region = _location(entry["path"], change["line"], change["column"], change["end_line"], change["end_column"])
            result["fixes"] = [
                {
                    "description": {"text": f"{change['rule']}: {change['safety']} fix"},
                    "artifactChanges": [
                        {
                            "artifactLocation": region["physicalLocation"]["artifactLocation"],
                            "replacements": [
                                {
                                    "deletedRegion": region["physicalLocation"]["region"],
                                    "insertedContent": {"text": change["after"]},
                                }
                            ],
                        }
                    ],
                }
            ]
        results.append(result)
    notifications = [
        {
            "level": "error",
            "message": {"text": entry["error"]},
            "locations": [_location(entry["path"], 0)],
        }
        for entry in data["files"]
        if entry.get("error")
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "ccmigrate",
                        "version": __version__,
                        "rules": _rule_descriptors(rule_ids),
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not notifications,
                        "toolExecutionNotifications": notifications,
                        "properties": {"command": command, "summary": data.get("summary", {})},
                    }
                ],
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {"%SRCROOT%": {"uri": _cwd_uri()}},
                "results": results,
            }
        ],
    }


def _cwd_uri() -> str:
    uri = PurePath(os.getcwd()).as_uri()
    return uri if uri.endswith("/") else uri + "/"


# -- GitHub workflow commands ---------------------------------------------------------


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(level: str, message: str, path: Optional[str] = None, **where) -> str:
    """One ``::level file=...,line=...::message`` line, escaped as the runner expects."""
    props = []
    if path is not None:
        props.append(f"file={_escape_property(path)}")
    for key in ("line", "col", "endLine", "endColumn", "title"):
        value = where.get(key)
        if value not in (None, 0, ""):
            props.append(f"{key}={_escape_property(str(value))}")
    head = f"::{level} {','.join(props)}" if props else f"::{level}"
    return f"{head}::{_escape_data(message)}"


def github_annotations(data: dict) -> list[str]:
    command = data.get("command", "diff")
    lines = []
    for entry, change in _changes(data):
        if change["message"].startswith(SUPPRESSED_PREFIX):
            continue
        level = "notice" if _pending_level(command, change) == "note" else "warning"
        lines.append(
            workflow_command(
                level,
                change["message"],
                entry["path"],
                line=change["line"],
                col=change["column"],
                endLine=change["end_line"],
                endColumn=change["end_column"],
                title=f"ccmigrate {change['rule']} [{change['safety']}]",
            )
        )
    for entry in data["files"]:
        if entry.get("error"):
            lines.append(workflow_command("error", entry["error"], entry["path"], title="ccmigrate"))
    return lines


# -- verification sites -----------------------------------------------------------------
#
# A site record: {"path", "line", "target", "platform", "status", "error", "config_preserved"}.

#: Statuses that mean the site lowered as it should.
SITE_OK = frozenset({"verified", "ok", "passed"})
#: Not checked by lowering: no entry point reached the site (worth a look).
SITE_UNREACHED = frozenset({"unreached"})
#: Not checked by design (``--static``, a platform that is not available).
SITE_SKIPPED = frozenset({"static", "skipped", "unsupported"})


def _site_level(site: dict) -> str:
    """SARIF level of a site: ``none`` (verified), ``note``, ``warning`` or ``error``."""
    status = str(site.get("status", ""))
    if status in SITE_OK:
        return "error" if site.get("config_preserved") is False else "none"
    if status in SITE_UNREACHED:
        return "warning"
    if status in SITE_SKIPPED:
        return "note"
    return "error"


def _site_message(site: dict) -> str:
    text = f"{site.get('target')} on {site.get('platform') or 'the default platform'}: {site.get('status')}"
    if site.get("config_preserved") is False:
        text += "; backend_config not preserved"
    if site.get("error"):
        text += f" ({site['error']})"
    if site.get("note"):
        text += f"; {site['note']}"
    return text


def sites_text(sites: Sequence[dict]) -> list[str]:
    """``path:line: target [platform] status`` lines, one per verified site."""
    lines = []
    for site in sites:
        preserved = {True: "config preserved", False: "config NOT preserved", None: ""}.get(site.get("config_preserved"), "")
        tail = f"; {preserved}" if preserved else ""
        error = f": {site['error']}" if site.get("error") else ""
        where = f"{relative_path(site['path'])}:{site.get('line', 0)}"
        lines.append(f"{where}: {site.get('target')} [{site.get('platform') or 'default'}] {site.get('status')}{tail}{error}")
    return lines


def sites_github(sites: Sequence[dict]) -> list[str]:
    """Workflow commands for the sites that did not verify (and notices for skipped ones)."""
    lines = []
    for site in sites:
        level = _site_level(site)
        if level == "none":
            continue
        lines.append(
            workflow_command(
                {"error": "error", "warning": "warning"}.get(level, "notice"),
                _site_message(site),
                relative_path(site["path"]),
                line=site.get("line"),
                endLine=site.get("end_line"),
                title=f"ccmigrate verify {site.get('platform') or ''}".strip(),
            )
        )
    return lines


def sites_sarif(sites: Sequence[dict]) -> dict:
    """A SARIF 2.1.0 log with one result per site (``kind: pass`` for those that verified)."""
    results = []
    for site in sites:
        level = _site_level(site)
        result = {
            "ruleId": "verify",
            "ruleIndex": 0,
            "kind": {"none": "pass", "note": "notApplicable", "warning": "open"}.get(level, "fail"),
            "level": level,
            "message": {"text": _site_message(site)},
            "locations": [_location(site["path"], int(site.get("line") or 0), end_line=int(site.get("end_line") or 0))],
            "properties": {k: site.get(k) for k in ("target", "platform", "status", "config_preserved")},
        }
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "ccmigrate",
                        "version": __version__,
                        "rules": [
                            {
                                "id": "verify",
                                "shortDescription": {"text": "A migrated custom-call site lowers with the installed jax."},
                                "defaultConfiguration": {"level": "error"},
                            }
                        ],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {"%SRCROOT%": {"uri": _cwd_uri()}},
                "results": results,
            }
        ],
    }


def combined_sarif(data: dict, sites: Sequence[dict]) -> dict:
    """One SARIF log for ``apply --verify``: the migration's run, then the verification's."""
    log = to_sarif(data)
    log["runs"].extend(sites_sarif(sites)["runs"])
    return log


def render_sites(sites: Sequence[dict], fmt: str) -> str:
    """Verification sites as ``text``, ``json``, ``sarif`` or ``github`` output."""
    if fmt == "text":
        return "".join(line + "\n" for line in sites_text(sites))
    if fmt == "json":
        return json.dumps({"sites": list(sites)}, indent=2) + "\n"
    if fmt == "sarif":
        return json.dumps(sites_sarif(sites), indent=2) + "\n"
    if fmt == "github":
        return "".join(line + "\n" for line in sites_github(sites))
    raise ValueError(f"no renderer for format {fmt!r}")
