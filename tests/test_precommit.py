"""The pre-commit hook fails on a repository with a legacy site.

``pre-commit try-repo`` builds the hook's own environment from this repository
(``pip install .``: jax, jaxlib and libcst from the package index), which takes minutes;
that end-to-end test runs when ``CCMIGRATE_TEST_PRE_COMMIT=1`` (``make test-pre-commit``)
and is bounded by a time limit. The manifest and the hook's command are checked always.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

import pytest

from tests.helpers import ROOT, ccmigrate
from tests.samples import ONE, VALID

HOOK_ID = "ccmigrate"
BUILD_LIMIT_S = 420


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=cwd, check=True, capture_output=True)


def _repository(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "legacy.py").write_bytes(ONE)
    (repo / "clean.py").write_bytes(VALID)
    _git(repo, "add", ".")
    return repo


def _hook() -> dict:
    from pre_commit.clientlib import load_manifest

    [hook] = [h for h in load_manifest(os.path.join(ROOT, ".pre-commit-hooks.yaml")) if h["id"] == HOOK_ID]
    return hook


def test_manifest_declares_a_python_hook_running_diff():
    hook = _hook()
    assert hook["language"] == "python" and hook["types"] == ["python"] and hook["pass_filenames"]
    assert shlex.split(hook["entry"]) == ["ccmigrate", "diff"]


def test_hook_command_fails_while_changes_are_pending(tmp_path):
    # What pre-commit runs: the entry with the staged Python files appended.
    repo = _repository(tmp_path)
    args = shlex.split(_hook()["entry"])[1:]
    pending = ccmigrate(*args, "legacy.py", "clean.py", cwd=str(repo))
    assert pending.returncode == 1 and "+++ legacy.py" in pending.stdout
    clean = ccmigrate(*args, "clean.py", cwd=str(repo))
    assert clean.returncode == 0 and clean.stdout == ""


@pytest.mark.skipif(os.environ.get("CCMIGRATE_TEST_PRE_COMMIT") != "1", reason=(
    "pre-commit try-repo installs jax/jaxlib into a fresh environment (minutes); "
    "set CCMIGRATE_TEST_PRE_COMMIT=1 or run `make test-pre-commit`"))
def test_pre_commit_try_repo_fails_on_a_legacy_site(tmp_path):
    if not os.path.isdir(os.path.join(ROOT, ".git")) and not os.path.isfile(os.path.join(ROOT, ".git")):
        pytest.skip("try-repo needs this project as a git repository")
    repo = _repository(tmp_path)
    pre_commit = shutil.which("pre-commit", path=os.path.dirname(sys.executable)) or "pre-commit"
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}
    try:
        proc = subprocess.run(
            [pre_commit, "try-repo", ROOT, HOOK_ID, "--files", "legacy.py", "clean.py"],
            cwd=repo, env=env, capture_output=True, text=True, timeout=BUILD_LIMIT_S,
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"pre-commit could not build the hook's environment within {BUILD_LIMIT_S} s")
    output = proc.stdout + proc.stderr
    if "hook id: " not in output and "Passed" not in output:
        pytest.skip(f"pre-commit could not build the hook's environment: {output.strip().splitlines()[-1:]}")
    assert proc.returncode == 1, output
    assert "- hook id: ccmigrate" in output and "Failed" in output
    assert "+++ legacy.py" in output
