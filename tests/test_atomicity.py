"""SIGKILL at random moments of ``ccmigrate apply`` never leaves a half-written file.

A generated repository of a few hundred legacy modules is migrated, and the process
group is killed at seeded random moments of its writing phase, several rounds. After
each kill every file holds either its old or its new bytes. A named temporary file can
exist only between naming a finished, flushed rewrite and renaming it into place (two
system calls), so at most one may be left, holding a complete rewrite; the next
``apply`` removes it and finishes the migration.
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import time

from codemods.discovery import TEMP_NAME, TEMP_SUFFIX
from tests.helpers import child_env

#: A few hundred files (about 40 s); a larger tree:
#: ``CCMIGRATE_KILL_TEST_FILES=2000 pytest tests/test_atomicity.py``.
FILES = int(os.environ.get("CCMIGRATE_KILL_TEST_FILES", "300"))
DIRS = 8
ROUNDS = 3
SEED = 20261130

MODULE = '''"""Kernel {i} of a generated extension."""
import json

from jax.interpreters import mlir as {alias}


def _kernel_{i}_lowering(ctx, x, *, alpha):
    out_type = {alias}.aval_to_ir_type(ctx.avals_out[0])
    return {alias}.custom_call(
        "kernel_{i}_f32",
        result_types=[out_type],
        operands=[x],
        backend_config={{"kernel": {i}, "alpha": {alpha}, "name": "k{i}", "pad": "{pad}"}},
        api_version={api},
    ).results
'''


def _generate(root: str, files: int = FILES) -> dict[str, bytes]:
    rng = random.Random(SEED)
    old = {}
    for i in range(files):
        directory = os.path.join(root, f"pkg{i % DIRS}")
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, f"kernel_{i:03d}.py")
        text = MODULE.format(i=i, alias=rng.choice(["mlir", "m", "jm"]), alpha=rng.random(), api=rng.choice([1, 2, 3]), pad="p" * rng.randrange(0, 4000))
        old[path] = text.encode()
    for path, data in old.items():
        with open(path, "wb") as fh:
            fh.write(data)
    return old


def _hashes(root: str) -> dict[str, str]:
    out = {}
    for directory, _, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            with open(path, "rb") as fh:
                out[path] = hashlib.sha256(fh.read()).hexdigest()
    return out


def _start(root: str) -> subprocess.Popen:
    return subprocess.Popen(
        # One rule keeps each run short; what is tested is the writer, not the rules.
        [sys.executable, "-m", "codemods", "apply", "-q", "--select", "backend-config", "--jobs", "2", root],
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # one process group: the workers die with it
    )


def _directory_times(root: str) -> list[int]:
    return [os.stat(os.path.join(root, f"pkg{d}")).st_mtime_ns for d in range(DIRS)]


def _wait_for_first_write(proc: subprocess.Popen, root: str) -> None:
    before = _directory_times(root)
    while _directory_times(root) == before and proc.poll() is None:
        time.sleep(0.0005)


def _restore(old: dict[str, bytes]) -> None:
    for path, data in old.items():
        with open(path, "wb") as fh:
            fh.write(data)


def test_sigkill_during_apply_leaves_every_file_old_or_new(tmp_path):
    root = str(tmp_path / "repo")
    old = _generate(root)
    old_hash = {path: hashlib.sha256(data).hexdigest() for path, data in old.items()}

    # A full run gives the new content and how long the writing phase lasts.
    proc = _start(root)
    _wait_for_first_write(proc, root)
    writing_began = time.monotonic()
    _, err = proc.communicate(timeout=300)
    writing = time.monotonic() - writing_began
    assert proc.returncode == 0, err.decode()
    new_hash = _hashes(root)
    assert set(new_hash) == set(old_hash)
    assert all(new_hash[p] != old_hash[p] for p in old_hash), "every generated module has a site"

    rng = random.Random(SEED)
    torn = 0
    for round_ in range(ROUNDS):
        _restore(old)
        proc = _start(root)
        _wait_for_first_write(proc, root)
        time.sleep(rng.uniform(0, writing))
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)

        now = _hashes(root)
        temps = [p for p in now if p not in old_hash]
        assert all(TEMP_NAME.fullmatch(os.path.basename(p)) for p in temps), temps
        assert len(temps) <= 1, f"round {round_}: more than one temporary file: {temps}"
        for path in old_hash:
            assert now[path] in (old_hash[path], new_hash[path]), f"round {round_}: {path} is neither old nor new"
        for temp in temps:  # a finished rewrite, killed just before its rename
            assert now[temp] in new_hash.values()
        written = sum(now[p] == new_hash[p] for p in old_hash)
        torn += 0 < written < len(old_hash)
    assert torn >= 1, "no kill landed while files were being written; the test proved nothing"

    # The next run removes any leftover and finishes the job.
    proc = _start(root)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()
    assert _hashes(root) == new_hash, "the rerun did not finish the migration, or left a file behind"


def test_apply_removes_temporary_files_an_interrupted_run_left(tmp_path):
    root = str(tmp_path / "repo")
    old = _generate(root, files=3)
    directory = os.path.dirname(next(iter(old)))
    leftover = os.path.join(directory, f".kernel_000.py.0123abcd{TEMP_SUFFIX}")
    theirs = os.path.join(directory, f"notes{TEMP_SUFFIX}")
    for path in (leftover, theirs):
        with open(path, "wb") as fh:
            fh.write(b"x")
    proc = _start(root)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()
    assert not os.path.exists(leftover)
    assert os.path.exists(theirs), "a file the tool did not name that way was removed"
