"""Splitting one pass over many files across machines, and joining their reports.

``--shard K/N`` keeps the files whose path, taken relative to the directory holding
every given path and written with ``/``, hashes (BLAKE2b) to ``K-1`` modulo ``N``. The
split depends on nothing but those relative paths, so each job of a CI matrix that
runs the same command on its own checkout gets the same share on any machine, and
every file lands in exactly one shard.

``ccmigrate merge-reports`` joins the shards' JSON reports into the report one
unsharded run would have written.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Callable, Iterable, Sequence

from codemods.report import REPORT_VERSION


class ShardError(ValueError):
    pass


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``; shards are numbered from 1."""
    index, sep, count = text.partition("/")
    try:
        k, n = int(index), int(count)
    except ValueError:
        raise ShardError(f"--shard takes K/N (e.g. 1/4), not {text!r}") from None
    if not sep or n < 1 or not 1 <= k <= n:
        raise ShardError(f"--shard K/N needs 1 <= K <= N, got {text!r}")
    return k, n


def shard_root(paths: Sequence[str]) -> str:
    """The directory the shard hash is taken relative to: the one holding every path."""
    absolute = [os.path.abspath(p) for p in paths] or [os.getcwd()]
    root = os.path.commonpath(absolute)
    return os.path.dirname(root) if os.path.isfile(root) else root


def shard_of(path: str, root: str, count: int) -> int:
    """The 1-based shard of ``path`` among ``count``."""
    rel = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
    digest = hashlib.blake2b(rel.encode("utf-8", "surrogateescape"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % count + 1


def selector(paths: Sequence[str], index: int, count: int) -> Callable[[str], bool]:
    """A predicate over discovered paths keeping those of shard ``index`` of ``count``."""
    root = shard_root(paths)
    return lambda path: shard_of(path, root, count) == index


# -- merging -------------------------------------------------------------------


def _discovery_key(path: str) -> tuple:
    """Order of :func:`codemods.discovery.discover` within one root: a directory's
    files (by name) before its subdirectories (by name, each walked in turn)."""
    parts = path.replace(os.sep, "/").split("/")
    return tuple((1, p) for p in parts[:-1]) + ((0, parts[-1]),)


def merge(reports: Sequence[dict]) -> dict:
    """One report from the reports of disjoint shards of the same command."""
    if not reports:
        raise ShardError("no reports to merge")
    commands = {r.get("command") for r in reports}
    if len(commands) != 1:
        raise ShardError(f"reports of different commands cannot be merged: {', '.join(sorted(map(str, commands)))}")
    for r in reports:
        if r.get("version") != REPORT_VERSION or r.get("tool") != "ccmigrate":
            raise ShardError(f"not a ccmigrate report of version {REPORT_VERSION}")
    files: dict[str, dict] = {}
    for r in reports:
        for entry in r["files"]:
            if entry["path"] in files:
                raise ShardError(f"{entry['path']} is in more than one report; were the shards overlapping?")
            files[entry["path"]] = entry
    ordered = [files[p] for p in sorted(files, key=_discovery_key)]
    counts = {"safe": 0, "unsafe": 0, "manual": 0}
    for r in reports:
        for key in counts:
            counts[key] += r["summary"]["changes"][key]
    summary = {
        "files_scanned": sum(r["summary"]["files_scanned"] for r in reports),
        "files_changed": sum(r["summary"]["files_changed"] for r in reports),
        "files_failed": sum(r["summary"]["files_failed"] for r in reports),
        "changes": counts,
        "applied": sum(r["summary"]["applied"] for r in reports),
    }
    return {**{k: v for k, v in reports[0].items() if k not in ("summary", "files")}, "summary": summary, "files": ordered}


def load_reports(paths: Iterable[str]) -> list[dict]:
    reports = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as fh:
                reports.append(json.load(fh))
        except OSError as exc:
            raise ShardError(f"{path}: {exc.strerror or exc}") from None
        except json.JSONDecodeError as exc:
            raise ShardError(f"{path}: not a JSON report: {exc}") from None
    return reports
