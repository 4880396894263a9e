"""``apply --verify --compile``: a kernel registered in-process is compiled and run, and
receives exactly the config bytes the rewrite produces."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.helpers import TESTDATA, ccmigrate

NATIVE = os.path.join(TESTDATA, "verify", "native")
EXPECTED = b'{"alpha":2.0,"mode":"fast","note":"caf\\u00e9"}'


def _compiler():
    for name in ("g++", "c++", "clang++"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_the_kernel_receives_the_rewritten_config_bytes(tmp_path):
    compiler = _compiler()
    if compiler is None:
        pytest.skip("no C++ compiler (g++, c++ or clang++) on PATH to build the test kernel")
    include = subprocess.run(
        [sys.executable, "-c", "import jax; print(jax.ffi.include_dir())"], capture_output=True, text=True, check=True
    ).stdout.strip()
    library = tmp_path / "libecho.so"
    build = subprocess.run(
        [compiler, "-std=c++17", "-shared", "-fPIC", f"-I{include}", os.path.join(NATIVE, "echo.cc"), "-o", str(library)],
        capture_output=True,
        text=True,
    )
    if build.returncode != 0:
        pytest.skip(f"the C++ compiler cannot build against jax's FFI headers: {build.stderr.strip()[:300]}")
    repo = tmp_path / "repo"
    shutil.copytree(NATIVE, repo)
    log = tmp_path / "received.bin"
    report = tmp_path / "report.json"
    proc = ccmigrate(
        "apply", ".", "--allow-dirty", "--verify", "--compile", "--verify-report", str(report),
        cwd=str(repo), env={"CCMIGRATE_ECHO_LIB": str(library), "CCMIGRATE_ECHO_LOG": str(log)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [row] = json.loads(report.read_text())["sites"]
    assert (row["status"], row["config_preserved"], row["note"]) == ("verified", True, "compiled and run")
    received = log.read_bytes()
    assert received == EXPECTED
