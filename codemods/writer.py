"""Writing rewrites back: atomically, only when changed, never over uncommitted work."""

from __future__ import annotations

import os
import subprocess
from typing import Iterable, Optional

from codemods.engine import FileResult
from codemods.fileio import ReadOnly, WriteConflict, check_writable, write_atomic


def _git_root(path: str) -> Optional[str]:
    directory = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    try:
        proc = subprocess.run(["git", "-C", directory, "rev-parse", "--show-toplevel"], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.decode().strip() or None if proc.returncode == 0 else None


def dirty_files(paths: Iterable[str]) -> set[str]:
    """Those of ``paths`` (absolute, real) that have uncommitted changes in their git work tree.

    Modified, staged and untracked files all count, as with ``cargo fix``.
    """
    by_root: dict[str, list[str]] = {}
    roots: dict[str, Optional[str]] = {}  # one git call per directory, not per file
    for path in paths:
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in roots:
            roots[directory] = _git_root(directory)
        root = roots[directory]
        if root is not None:
            by_root.setdefault(root, []).append(os.path.realpath(path))
    dirty: set[str] = set()
    for root, files in by_root.items():
        proc = subprocess.run(
            ["git", "-C", root, "status", "--porcelain", "-z", "--untracked-files=all", "--", *files],
            capture_output=True,
            timeout=120,
        )
        if proc.returncode != 0:
            continue
        entries = proc.stdout.split(b"\0")
        i = 0
        while i < len(entries):
            entry = entries[i]
            i += 1
            if len(entry) < 4:
                continue
            code, name = entry[:2], entry[3:].decode("utf-8", "surrogateescape")
            if code[:1] in (b"R", b"C"):
                i += 1  # the next entry is the rename source
            dirty.add(os.path.realpath(os.path.join(root, name)))
    return dirty


def write_all(results: Iterable[FileResult], allow_dirty: bool = False) -> None:
    """Write every changed result; failures are recorded on the result as ``error``.

    Files whose changes depend on each other (a translation rule converted in one module,
    registered as a lowering rule in another) are written all or none: when one of them
    cannot be written, the others are left as they were, or put back.
    """
    results = list(results)
    changed = [r for r in results if r.changed and not r.error]
    dirty = set() if allow_dirty else dirty_files(r.path for r in changed)
    for result in changed:
        if os.path.realpath(result.path) in dirty:
            result.error = "has uncommitted changes; commit or stash them first, or pass --allow-dirty"
    for group in _linked_groups(results):
        _write_group([r for r in group if r.changed], group)


def _linked_groups(results: list[FileResult]) -> list[list[FileResult]]:
    """The results in groups of files linked by decisions they all made (each result
    alone when it is linked to none), in the order given."""
    group_of: dict[int, list[FileResult]] = {id(r): [r] for r in results}
    first_with: dict = {}
    for result in results:
        for key, claim in result.claims.items():
            if claim.problem is not None:
                continue
            other = first_with.setdefault(key, result)
            mine, theirs = group_of[id(result)], group_of[id(other)]
            if mine is not theirs:
                mine.extend(theirs)
                for member in theirs:
                    group_of[id(member)] = mine
    order = {id(r): i for i, r in enumerate(results)}
    seen, groups = set(), []
    for result in results:
        group = group_of[id(result)]
        if id(group) not in seen:
            seen.add(id(group))
            groups.append(sorted(group, key=lambda r: order[id(r)]))
    return groups


def _write_group(changed: list[FileResult], group: list[FileResult]) -> None:
    if len(group) == 1:
        if changed and not changed[0].error:
            _write_one(changed[0])
        return
    failed = next((r for r in group if r.error), None) or next((r for r in changed if _cannot_write(r)), None)
    written: list[FileResult] = []
    if failed is None:
        for result in changed:
            _write_one(result)
            if result.error:
                failed = result
                break
            written.append(result)
    if failed is None:
        return
    for result in written:
        try:
            write_atomic(result.path, result.original, result.updated)
        except (WriteConflict, ReadOnly, OSError) as exc:
            result.error = f"written, but not put back after `{failed.path}` could not be written: {exc}"
    for result in changed:
        if result is not failed and not result.error:
            result.error = f"not written: its changes go with those of `{failed.path}`, which could not be written"
        for change in result.changes:
            change.applied = False


def _cannot_write(result: FileResult) -> bool:
    """Whether writing ``result`` would fail on a check ``write_atomic`` makes first."""
    try:
        check_writable(result.path, result.original)
    except (WriteConflict, ReadOnly) as exc:
        result.error = str(exc)
        return True
    except OSError as exc:
        result.error = f"cannot write: {exc.strerror or exc}"
        return True
    return False


def _write_one(result: FileResult) -> None:
    try:
        write_atomic(result.path, result.updated, result.original)
    except (WriteConflict, ReadOnly) as exc:
        result.error = str(exc)
    except FileNotFoundError:
        result.error = "file disappeared before it could be written; not written"
    except OSError as exc:
        result.error = f"cannot write: {exc.strerror or exc}"
    if result.error:
        for change in result.changes:
            change.applied = False
