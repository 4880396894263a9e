"""Find the Python files under the paths a user gave.

Skips version-control folders, virtual environments, ``node_modules``, build output,
caches, whatever ``.gitignore`` ignores inside a git work tree, and ``--exclude`` globs.
Never follows a symbolic link out of the root it was found under, and never loops.
Problems are yielded as errors next to files, so one bad path never stops a run.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import re
import stat
import subprocess
from typing import Iterable, Iterator, Optional

SKIP_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".bzr", "_darcs",
        # ``env`` is not here: it names packages too (reinforcement-learning code), and a
        # virtual environment of any name is told by its ``pyvenv.cfg``.
        ".venv", "venv", ".tox", ".nox", ".direnv",
        "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
        ".hypothesis", "build", "dist", "site-packages", "__pypackages__", ".eggs",
    }
)

#: Temporary files that an interrupted ``apply`` may leave (see :mod:`codemods.fileio`).
TEMP_SUFFIX = ".ccmigrate-tmp"
#: Exactly how :mod:`codemods.fileio` names them; nothing else is ever removed.
TEMP_NAME = re.compile(r"\..+\.[0-9a-f]{8}" + re.escape(TEMP_SUFFIX))


@dataclasses.dataclass(frozen=True)
class Found:
    path: str
    error: Optional[str] = None


def _is_venv(path: str) -> bool:
    return os.path.exists(os.path.join(path, "pyvenv.cfg"))


def _excluded(rel: str, name: str, excludes: tuple[str, ...]) -> bool:
    for pattern in excludes:
        pat = pattern.rstrip("/")
        if fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(name, pat) or fnmatch.fnmatch(rel, pat + "/*"):
            return True
    return False


def git_ignored(root: str) -> Optional[set[str]]:
    """Absolute paths (files and directories) that git ignores under ``root``.

    ``None`` when ``root`` is not inside a git work tree or git is unavailable.
    """
    try:
        proc = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"],
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    base = os.path.realpath(root)
    return {
        os.path.normpath(os.path.join(base, entry.decode("utf-8", "surrogateescape")))
        for entry in proc.stdout.split(b"\0")
        if entry
    }


def discover(
    paths: Iterable[str],
    excludes: Iterable[str] = (),
    respect_gitignore: bool = True,
    clean_temps: bool = False,
) -> Iterator[Found]:
    """Yield every Python file (or error) under ``paths``, each real file once.

    With ``clean_temps``, temporary files left by an interrupted ``apply`` are removed.
    """
    excludes = tuple(excludes)
    seen: set[str] = set()
    for given in paths:
        if not os.path.lexists(given):
            yield Found(given, "no such file or directory")
            continue
        if os.path.islink(given) and not os.path.exists(given):
            yield Found(given, "broken symbolic link")
            continue
        if os.path.isfile(given):
            real = os.path.realpath(given)
            if real not in seen:
                seen.add(real)
                yield Found(given)
            continue
        if not os.path.isdir(given):
            yield Found(given, "not a regular file or directory")
            continue
        root_real = os.path.realpath(given)
        ignored = git_ignored(given) if respect_gitignore else None
        yield from _walk(given, root_real, excludes, ignored or set(), seen, clean_temps)


def _walk(
    root: str, root_real: str, excludes: tuple[str, ...], ignored: set[str], seen: set[str], clean_temps: bool
) -> Iterator[Found]:
    # Each directory travels with its real path: below a directory reached without a
    # symbolic link, an entry's real path is that path joined with its name, so only
    # links need ``realpath`` (one ``lstat`` per path component, per file otherwise).
    # Entry types come from the directory listing itself, not from a ``stat`` each.
    stack = [(root, root_real)]
    visited_dirs: set[tuple[int, int]] = set()
    while stack:
        directory, directory_real = stack.pop()
        try:
            st = os.stat(directory)
            key = (st.st_dev, st.st_ino)
            if key in visited_dirs:
                yield Found(directory, "symbolic link loop")
                continue
            visited_dirs.add(key)
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            yield Found(directory, exc.strerror or str(exc))
            continue
        subdirs: list[tuple[str, str]] = []
        for entry in entries:
            path = entry.path
            name = entry.name
            if excludes or ignored:
                rel = os.path.relpath(path, root)
                if _excluded(rel, name, excludes):
                    continue
                if ignored and os.path.normpath(os.path.join(root_real, rel)) in ignored:
                    continue
            try:
                if entry.is_symlink():
                    real = os.path.realpath(path)
                    if not os.path.exists(path):
                        if name.endswith(".py"):
                            yield Found(path, _link_error(path))
                        continue
                    if real != root_real and not real.startswith(root_real + os.sep):
                        if name.endswith(".py") or os.path.isdir(path):
                            yield Found(path, "symbolic link points outside the given root; not followed")
                        continue
                    mode = os.stat(path).st_mode
                    is_dir, is_regular = stat.S_ISDIR(mode), stat.S_ISREG(mode)
                else:
                    real = os.path.join(directory_real, name)
                    is_dir = entry.is_dir(follow_symlinks=False)
                    is_regular = not is_dir and entry.is_file(follow_symlinks=False)
            except OSError as exc:
                yield Found(path, exc.strerror or str(exc))
                continue
            if is_dir:
                if name in SKIP_DIRS or name.endswith(".egg-info") or _is_venv(path):
                    continue
                if name.endswith(".py"):
                    yield Found(path, "is a directory, not a Python file")
                subdirs.append((path, real))
            elif name.endswith(".py"):
                if not is_regular:
                    yield Found(path, "not a regular file")
                    continue
                if real in seen:
                    continue
                seen.add(real)
                yield Found(path)
            elif clean_temps and TEMP_NAME.fullmatch(name):
                # Left by an apply that was killed between writing and renaming.
                try:
                    os.unlink(path)
                except OSError:
                    pass
        stack.extend(reversed(subdirs))


def _link_error(path: str) -> str:
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == 40:  # ELOOP
            return "symbolic link loop"
    return "broken symbolic link"
