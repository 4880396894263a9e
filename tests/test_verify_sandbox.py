"""One verification run over modules that misbehave at import: each is reported, the
run goes on, and the well-behaved modules beside them are verified."""

from __future__ import annotations

import ctypes
import json
import os
import shutil

import pytest

from codemods.verify import stubs

from tests.helpers import TESTDATA, ccmigrate

HOSTILE = os.path.join(TESTDATA, "verify", "hostile")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    report = tmp_path_factory.mktemp("sandbox") / "report.json"
    proc = ccmigrate(
        "verify", HOSTILE, "--timeout", "6", "--memory-limit", "1024", "--stub-missing", "--report", str(report)
    )
    with open(report) as fh:
        data = json.load(fh)
    sites = {(os.path.basename(s["path"]), s["target"]): s for s in data["sites"]}
    modules = {m["module"]: m for m in data["modules"]}
    return proc, sites, modules


def test_the_run_reports_failures_and_exits_1(run):
    proc, sites, _ = run
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert len(sites) == 22


@pytest.mark.parametrize(
    "module, target, error",
    [
        ("exits.py", "exits_target", "worker exited with status 3 while importing hostile.exits"),
        ("segv.py", "segv_target", "worker crashed (SIGSEGV) while importing hostile.segv"),
        ("hangs.py", "hangs_target", "timed out after 6 s while importing hostile.hangs"),
        ("hog.py", "hog_target", "MemoryError (the worker's memory limit was reached)"),
    ],
)
def test_a_module_that_kills_its_worker_is_reported(run, module, target, error):
    _, sites, _ = run
    row = sites[(module, target)]
    assert (row["status"], row["error"]) == ("failed", error)


def test_modules_beside_the_failures_are_verified(run):
    # good_ffi_target is reached only through a @jax.jit-decorated public function.
    _, sites, _ = run
    for key in [("good.py", "good_target"), ("good.py", "good_ffi_target"), ("floods.py", "floods_target")]:
        assert sites[key]["status"] == "verified", sites[key]


def test_flooded_output_is_truncated(run):
    _, _, modules = run
    flood = modules["hostile.floods"]
    assert flood["output_bytes"] > 8_000_000
    assert 0 < len(flood["output"]) <= 4096 and "flood flood" in flood["output"]
    assert any("output truncated" in note for note in flood["notes"])


def test_a_missing_extension_is_stubbed(run):
    _, sites, modules = run
    row = sites[("needs_ext.py", "ext_target")]
    assert row["status"] == "verified" and row["note"] == "with stubs (hostile._kernels)"
    assert modules["hostile.needs_ext"]["stubs"] == ["hostile._kernels"]


def test_a_module_inside_a_missing_extension_package_is_stubbed(run):
    _, sites, modules = run
    row = sites[("needs_ext_package.py", "ext_package_target")]
    assert row["status"] == "verified", row
    assert modules["hostile.needs_ext_package"]["stubs"] == ["hostile._native", "hostile._native.descriptors"]


def test_an_extension_the_module_guards_itself_is_stubbed(run):
    # try: from . import _gpu_kernels / except ImportError: the worker never sees the
    # failure; without a stand-in the GPU rule raises "not compiled with CUDA support".
    _, sites, modules = run
    row = sites[("guarded_gpu.py", "guarded_gpu_target")]
    assert (row["platform"], row["status"]) == ("cuda", "verified"), row
    assert modules["hostile.guarded_gpu"]["stubs"] == ["hostile._gpu_kernels"]


def test_a_shared_library_loaded_with_ctypes_is_stubbed(run):
    # ctypes.cdll.LoadLibrary(<package>/_build/librmsnorm.so), then pycapsule(lib.RmsNorm).
    _, sites, modules = run
    row = sites[("ctypes_library.py", "ctypes_target")]
    assert row["status"] == "verified", row
    assert modules["hostile.ctypes_library"]["stubs"] == ["librmsnorm.so"]


def test_only_a_library_missing_from_the_project_stands_in(tmp_path):
    standins = stubs.LibraryStandIns([str(tmp_path)])
    missing = OSError("cannot open shared object file: No such file or directory")
    assert standins.covers(str(tmp_path / "_build" / "libk.so"), missing)
    assert not standins.covers("/elsewhere/libk.so", missing)  # not the project's
    assert not standins.covers("libcudart.so.12", missing)  # the system's library path
    assert not standins.covers(str(tmp_path / "libk.so"), OSError("invalid ELF header"))  # there, but broken
    standins.install()
    try:
        with pytest.raises(OSError):
            ctypes.CDLL("/elsewhere/libk.so")
        lib = ctypes.cdll.LoadLibrary(str(tmp_path / "libk.so"))
        assert stubs.is_stand_in(lib.Kernel) and standins.stubbed == ["libk.so"]
    finally:
        standins.remove()
    with pytest.raises(OSError):
        ctypes.CDLL(str(tmp_path / "libk.so"))


def test_a_legacy_inline_ffi_call_fails_at_its_own_line(run):
    _, sites, _ = run
    row = sites[("good.py", "inline_target")]
    assert row["status"] == "failed"
    assert row["error"] == "TypeError: ffi_call() got an unexpected keyword argument 'alpha'"


def test_an_unreachable_site_says_how_to_add_an_entry_point(run):
    _, sites, _ = run
    row = sites[("needs_kw.py", "tile_target")]
    assert row["status"] == "unreached"
    assert '[tool.ccmigrate.verify] "hostile.needs_kw:<function>"' in row["error"]


def test_a_helper_probed_with_arrays_is_not_blamed_for_the_guess(run):
    # Called on its own with arrays, call_kernel raises on `args.layouts` at its site's
    # lines while tracing; the primitive's lowering reaches the site properly.
    _, sites, _ = run
    assert sites[("helper_args.py", "helper_args_target")]["status"] == "verified"


def test_a_required_scalar_parameter_is_given_a_scalar(run):
    # normalize(x, eps: float) binds eps as the primitive's param: an array there fails.
    _, sites, _ = run
    assert sites[("scalar_params.py", "scalar_params_target")]["status"] == "verified"


def test_ops_built_directly_with_custom_call_op_are_sites_too(run):
    _, sites, _ = run
    assert sites[("direct.py", "direct_typed")]["status"] == "verified"
    broken = sites[("direct.py", "direct_str")]
    assert broken["status"] == "failed"
    assert broken["error"].startswith('TypeError: Invalid attribute value for the key "backend_config"')


def test_a_branch_for_other_platforms_gets_no_row_where_its_rule_took_another(tmp_path):
    # One rule, registered for cpu and cuda with a platform keyword, builds a cpu call in
    # one branch and a gpu call in the other: each is verified on its own platform, and
    # neither is "unreached" on the other (no entry point could make it taken there).
    report = tmp_path / "report.json"
    module = os.path.join(HOSTILE, "hostile", "platform_branches.py")
    proc = ccmigrate("verify", module, "--platforms", "cpu,cuda", "--report", str(report))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(report) as fh:
        rows = json.load(fh)["sites"]
    assert sorted((r["target"], r["platform"], r["status"]) for r in rows) == [
        ("branch_cpu_target", "cpu", "verified"),
        ("branch_gpu_target", "cuda", "verified"),
    ]


def test_a_rule_turning_down_a_probes_made_up_inputs_fails_nothing(tmp_path):
    # solve's rule raises on float32 itself; scaled's rule lowers through the public
    # function (scale=2.0) but not when the primitive is bound bare, and has no GPU kernel.
    report = tmp_path / "report.json"
    proc = ccmigrate("verify", os.path.join(HOSTILE, "hostile", "turns_down.py"), "--report", str(report))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(report) as fh:
        rows = {(r["target"], r["platform"]): r for r in json.load(fh)["sites"]}
    assert {key: row["status"] for key, row in rows.items()} == {
        ("dtype_checked_target", "cpu"): "unreached",
        ("scaled_target", "cpu"): "verified",
        ("scaled_target", "cuda"): "unreached",
    }
    hint = rows[("dtype_checked_target", "cpu")]["error"]
    assert "NotImplementedError: Unsupported dtype float32" in hint
    # The public function the probe went through, ready to be given the right dtypes.
    assert '[tool.ccmigrate.verify] "hostile.turns_down:solve" = ["f32[8]"]' in hint


def test_a_rule_unpacking_a_shape_of_another_rank_than_the_probe_is_not_blamed(tmp_path):
    """``n, h, w, c = ctx.avals_in[0].shape`` given the probe's (8,) array: unreached, with
    the error in the hint; the entry point the hint asks for lowers it."""
    report = tmp_path / "report.json"
    proc = ccmigrate("verify", os.path.join(HOSTILE, "hostile", "image_rank.py"), "--report", str(report))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(report) as fh:
        (row,) = json.load(fh)["sites"]
    assert row["status"] == "unreached" and "not enough values to unpack (expected 4, got 1)" in row["error"]
    assert '"hostile.image_rank:blur" = ["f32[8]"]' in row["error"]

    repo = tmp_path / "repo"
    shutil.copytree(os.path.join(HOSTILE, "hostile"), repo / "hostile")
    (repo / "pyproject.toml").write_text('[tool.ccmigrate.verify]\n"hostile.image_rank:blur" = ["f32[2,8,8,3]"]\n')
    proc = ccmigrate("verify", str(repo / "hostile" / "image_rank.py"), "--report", str(report))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(report) as fh:
        assert [r["status"] for r in json.load(fh)["sites"]] == ["verified"]
