"""The command's entry point: which invocations start a verification worker before the CLI loads."""

from __future__ import annotations

import os

from codemods import launch
from tests.helpers import ROOT, ccmigrate

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib


def test_only_verify_with_workers_starts_one_early():
    assert launch.verifies(["verify", "pkg"])
    assert launch.verifies(["verify", "-q", "--platforms", "cpu,cuda", "pkg"])
    assert not launch.verifies(["verify", "--static", "pkg"])
    assert not launch.verifies(["verify", "--help"])
    assert not launch.verifies(["diff", "verify"])  # a path named verify
    assert launch.verifies(["apply", "--verify", "pkg"])
    assert not launch.verifies(["apply", "pkg"])
    assert not launch.verifies([])


def test_platforms_for_the_warm_up():
    assert launch.platforms(["verify", "--platforms", "CPU,cuda,cpu", "pkg"]) == ["cpu", "cuda"]
    assert launch.platforms(["verify", "--platforms=tpu", "pkg"]) == ["tpu"]
    assert launch.platforms(["verify", "--platforms", "nonsense", "pkg"]) == []
    assert launch.platforms(["verify", "pkg"]) == []


def test_an_old_libcst_first_on_the_path_is_one_clear_error(tmp_path):
    # A LibCST older than the rules need, found before the environment's (a system
    # site-packages, PYTHONPATH), used to fail deep in a rule on a missing node attribute.
    package = tmp_path / "libcst"
    package.mkdir()
    (package / "__init__.py").write_text("raise ImportError('this stand-in must not be imported')\n")
    info = tmp_path / "libcst-1.0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: libcst\nVersion: 1.0.1\n")
    (tmp_path / "mod.py").write_text("x = 1\n")
    proc = ccmigrate("diff", str(tmp_path / "mod.py"), env={"PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"ccmigrate: needs libcst >= 1.4, but libcst 1.0.1 is first on the path ({package / '__init__.py'}): "
        "python -m pip install --upgrade 'libcst>=1.4'"
    ]


def test_the_libcst_floor_is_the_one_pyproject_requires():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        dependencies = tomllib.load(fh)["project"]["dependencies"]
    assert "libcst>={}.{}".format(*launch.MIN_LIBCST) in dependencies
    assert launch.libcst_problem() is None  # the environment the suite runs in
