"""Writing rewrites back: atomically, only when changed, never over uncommitted work."""

from __future__ import annotations

import os
import subprocess
from typing import Iterable, Optional

from codemods.engine import FileResult
from codemods.fileio import ReadOnly, WriteConflict, write_atomic


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
    """Write every changed result; failures are recorded on the result as ``error``."""
    changed = [r for r in results if r.changed and not r.error]
    dirty = set() if allow_dirty else dirty_files(r.path for r in changed)
    for result in changed:
        if os.path.realpath(result.path) in dirty:
            result.error = "has uncommitted changes; commit or stash them first, or pass --allow-dirty"
            continue
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
