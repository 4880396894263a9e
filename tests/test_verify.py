"""``ccmigrate verify`` and ``apply --verify`` on a package of legacy lowering rules.

Before migration every broken site is named with jax's own error; after ``apply`` every
site lowers (with jax 0.10, on cpu and, without the hardware, cuda) and the rewritten
configs decode to the values the original code passed.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.helpers import TESTDATA, ccmigrate

LEGACY = os.path.join(TESTDATA, "verify", "legacy")
BROKEN = {
    "scale.py": "RuntimeError: std::bad_cast",
    "norm.py": "ValueError: custom_call backend_config unexpected type: [1, 2, 3]",
    "cuda_only.py": "RuntimeError: std::bad_cast",
    "ops.py": "ValueError: custom_call backend_config unexpected type: FusedConfig(mode='fast', tile=16)",
}


def _rows(report_path) -> list[dict]:
    with open(report_path) as fh:
        return json.load(fh)["sites"]


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    """The package verified before migration, then migrated with ``apply --verify``."""
    root = tmp_path_factory.mktemp("legacy")
    repo = str(root / "repo")
    shutil.copytree(LEGACY, repo)
    before = ccmigrate("verify", ".", "--platforms", "cpu,cuda", "--report", str(root / "before.json"), cwd=repo)
    after = ccmigrate(
        "apply", ".", "--allow-dirty", "--verify", "--platforms", "cpu,cuda", "--verify-report", str(root / "after.json"), cwd=repo
    )
    return repo, before, _rows(root / "before.json"), after, _rows(root / "after.json")


def test_before_migration_every_broken_site_fails_with_the_jax_error(migrated):
    repo, before, rows, _, _ = migrated
    assert before.returncode == 1, before.stdout + before.stderr
    for row in rows:
        name = os.path.basename(row["path"])
        assert row["status"] == "failed", row
        assert row["error"] == BROKEN[name]
        assert row["config_preserved"] is None
        assert set(row) >= {"path", "line", "target", "platform", "status", "error", "config_preserved"}
    assert {os.path.basename(r["path"]) for r in rows} == set(BROKEN)
    assert "legacy_norm_f32" in before.stdout and "unexpected type: [1, 2, 3]" in before.stdout


def test_after_apply_every_site_is_verified_and_keeps_its_config(migrated):
    repo, _, _, after, rows = migrated
    assert after.returncode == 0, after.stdout + after.stderr
    assert rows and all(r["status"] == "verified" and r["error"] is None for r in rows), rows
    assert all(r["config_preserved"] is True for r in rows), rows
    targets = {(os.path.basename(r["path"]), r["platform"]) for r in rows}
    assert targets == {
        ("scale.py", "cpu"), ("scale.py", "cuda"), ("norm.py", "cpu"), ("norm.py", "cuda"),
        ("ops.py", "cpu"), ("ops.py", "cuda"),
        ("cuda_only.py", "cuda"),  # its rule is registered for cuda only: no cpu row
    }
    # Lines are those of the rewritten files.
    with open(os.path.join(repo, "kernels", "scale.py")) as fh:
        lines = fh.read().splitlines()
    scale = next(r for r in rows if r["path"].endswith("scale.py"))
    assert "mlir.custom_call(" in lines[scale["line"] - 1]


def test_a_rule_registered_for_cuda_only_verifies_on_this_host(migrated):
    repo, *_ = migrated
    report = os.path.join(os.path.dirname(repo), "cuda.json")
    proc = ccmigrate("verify", "kernels/cuda_only.py", "--platforms", "cuda", "--strict", "--report", report, cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [row] = _rows(report)
    assert (row["target"], row["platform"], row["status"]) == ("legacy_gelu_cuda", "cuda", "verified")
    # Against git-less files there is no original to compare with.
    assert row["config_preserved"] is None


def test_without_platforms_a_rule_for_other_platforms_is_lowered_for_them(tmp_path):
    """The host's backend (cpu here) is not the one the rule targets: the site is still
    verified, on the platform its rule is registered for, not dropped from the report (a
    cpu/cuda package verified on a TPU host got "0 site/platform pair(s)")."""
    repo = str(tmp_path / "repo")
    shutil.copytree(LEGACY, repo)
    report = str(tmp_path / "before.json")
    proc = ccmigrate("verify", "kernels/cuda_only.py", "--report", report, cwd=repo)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    rows = _rows(report)
    assert [(r["platform"], r["status"], r["error"]) for r in rows] == [("cuda", "failed", BROKEN["cuda_only.py"])]
    with open(report) as fh:
        assert json.load(fh)["platforms"] == ["cpu", "cuda"]
    ccmigrate("apply", "kernels/cuda_only.py", "--allow-dirty", cwd=repo)
    proc = ccmigrate("verify", "kernels/cuda_only.py", "--report", report, cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [(r["platform"], r["status"]) for r in _rows(report)] == [("cuda", "verified")]
    # An entry point named in pyproject.toml reaches the cuda rule as well (the demo
    # package verified on a TPU host: its cpu rules, reached through configured entry
    # points only, were lowered for tpu alone and the run passed with no rows).
    with open(os.path.join(repo, "pyproject.toml"), "a") as fh:
        fh.write('"kernels.cuda_only:gelu" = ["f32[8]"]\n')
    proc = ccmigrate("verify", "kernels/cuda_only.py", "--report", report, cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [(r["platform"], r["status"]) for r in _rows(report)] == [("cuda", "verified")]
    # A platform asked for explicitly is the only one lowered: no row, nothing verified.
    proc = ccmigrate("verify", "kernels/cuda_only.py", "--platforms", "cpu", "--report", report, cwd=repo)
    assert _rows(report) == []
    # ... and the site it left out is named, with the platforms that would reach it.
    with open(report) as fh:
        assert [(os.path.basename(n["path"]), n["registered_for"]) for n in json.load(fh)["not_lowered"]] == [
            ("cuda_only.py", ["cuda"])]
    assert "not lowered: its lowering rule is registered for cuda only (add --platforms cuda)" in proc.stdout


def test_sites_built_through_a_partial_are_verified(tmp_path):
    """``custom_call = functools.partial(jax.ffi.build_ffi_lowering_function, name, ...)``
    then ``custom_call(...)(ctx, x)``: the rewritten extending-jax shape. Before the
    partial's calls were sites, a package of these verified '0 site/platform pair(s)'."""
    (tmp_path / "partial_ops.py").write_text(
        "import functools\n\n"
        "import jax\n"
        "from jax.extend.core import Primitive\n"
        "from jax.interpreters import mlir\n\n"
        'square_p = Primitive("partial_square")\n'
        "square_p.def_abstract_eval(lambda x: x)\n\n\n"
        "def _lowering(ctx, x):\n"
        '    call = functools.partial(jax.ffi.build_ffi_lowering_function, "partial_square", api_version=2)\n'
        '    return call(backend_config=b"cfg")(ctx, x)\n\n\n'
        'mlir.register_lowering(square_p, _lowering, platform="cpu")\n\n\n'
        "def square(x):\n"
        "    return square_p.bind(x)\n"
    )
    report = str(tmp_path / "report.json")
    proc = ccmigrate("verify", "partial_ops.py", "--platforms", "cpu", "--report", report, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [(r["line"], r["target"], r["platform"], r["status"]) for r in _rows(report)] == [
        (13, "partial_square", "cpu", "verified")]


def test_a_top_level_extension_declared_in_setup_py_is_stubbed(tmp_path):
    """klujax's shape: ``import klujax_cpp`` in a lone module, the extension built by the
    project's setup.py. With --stub-missing it stands in (the descriptor it builds is
    bytes, as the real one would be); without, the import fails."""
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\nfrom pybind11.setup_helpers import Pybind11Extension\n\n"
        'setup(name="fastlib", ext_modules=[Pybind11Extension("fastlib_cpp", ["src/fastlib.cpp"])])\n'
    )
    (tmp_path / "fastlib.py").write_text(
        "import jax\nimport fastlib_cpp\nfrom jax.extend.core import Primitive\nfrom jax.interpreters import mlir\n\n"
        'jax.ffi.register_ffi_target("fastlib_scale", fastlib_cpp.scale(), platform="cpu", api_version=0)\n'
        'scale_p = Primitive("fastlib_scale")\nscale_p.def_abstract_eval(lambda x: x)\n\n\n'
        "def _lowering(ctx, x):\n"
        "    opaque = fastlib_cpp.build_descriptor(x.type.shape[0])  # bytes the kernel decodes\n"
        '    return jax.ffi.ffi_lowering("fastlib_scale", api_version=1, backend_config=opaque)(ctx, x)\n\n\n'
        'mlir.register_lowering(scale_p, _lowering, platform="cpu")\n\n\n'
        "def scale(x):\n    return scale_p.bind(x)\n"
    )
    report = str(tmp_path / "report.json")
    proc = ccmigrate("verify", "fastlib.py", "--platforms", "cpu", "--stub-missing", "--report", report, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [(r["target"], r["status"], r["note"]) for r in _rows(report)] == [
        ("fastlib_scale", "verified", "with stubs (fastlib_cpp)")]
    proc = ccmigrate("verify", "fastlib.py", "--platforms", "cpu", "--report", report, cwd=str(tmp_path))
    assert proc.returncode == 1
    assert [(r["status"], r["error"]) for r in _rows(report)] == [
        ("failed", "ModuleNotFoundError: No module named 'fastlib_cpp'")]


def test_two_packages_of_one_name_at_two_roots_are_each_verified(tmp_path):
    """A repository holding two copies of a package (an old layout kept beside src/): the
    second import must not look inside the first copy, cached by the same worker."""
    module = (
        "import jax\nfrom jax.extend.core import Primitive\nfrom jax.interpreters import mlir\n\n"
        'p = Primitive("{name}")\np.def_abstract_eval(lambda x: x)\n\n\n'
        "def _lowering(ctx, x):\n"
        '    return jax.ffi.ffi_lowering("{name}", api_version=1, backend_config=b"")(ctx, x)\n\n\n'
        'mlir.register_lowering(p, _lowering, platform="cpu")\n\n\n'
        "def run(x):\n    return p.bind(x)\n"
    )
    for root, stem in (("old", "ops"), ("src", "kernels")):
        package = tmp_path / root / "twin"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / f"{stem}.py").write_text(module.format(name=f"twin_{root}"))
    report = str(tmp_path / "report.json")
    proc = ccmigrate("verify", "old", "src", "--platforms", "cpu", "--workers", "1", "--report", report, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted((r["target"], r["status"]) for r in _rows(report)) == [("twin_old", "verified"), ("twin_src", "verified")]


def test_a_file_with_dots_in_its_name_is_imported_from_its_file(tmp_path):
    """``kernel.v2.py`` (a kept variant of a module): no import statement names it, so it
    is imported from its file, and says so, instead of failing with ModuleNotFoundError."""
    (tmp_path / "kernel.v2.py").write_text(
        "import jax\nfrom jax.extend.core import Primitive\nfrom jax.interpreters import mlir\n\n"
        'p = Primitive("dotted_kernel")\np.def_abstract_eval(lambda x: x)\n\n\n'
        "def _lowering(ctx, x):\n"
        '    return jax.ffi.ffi_lowering("dotted_kernel", api_version=1, backend_config=b"")(ctx, x)\n\n\n'
        'mlir.register_lowering(p, _lowering, platform="cpu")\n\n\n'
        "def run(x):\n    return p.bind(x)\n")
    report = str(tmp_path / "report.json")
    proc = ccmigrate("verify", ".", "--platforms", "cpu", "--report", report, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [(r["target"], r["status"]) for r in _rows(report)] == [("dotted_kernel", "verified")]
    assert "has dots in its name" in proc.stdout + proc.stderr
