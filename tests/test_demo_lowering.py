"""End to end on the bundled example package: migrate it with the real CLI, then lower
every entry point with jax and compare the exact bytes that reach XLA."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import shutil
import sys

import pytest

from tests.helpers import TESTDATA, ccmigrate
from tests.lowering import custom_calls, lower

DEMO = os.path.join(TESTDATA, "demo")
ENTRY_POINTS = ["scale", "tiled_sum", "quantize", "clip", "normalize", "copy"]


def _import_fresh(src: str):
    for name in [m for m in sys.modules if m == "fastkernels" or m.startswith("fastkernels.")]:
        del sys.modules[name]
    sys.path.insert(0, src)
    try:
        return importlib.import_module("fastkernels")
    finally:
        sys.path.remove(src)


def _snapshot(root: str) -> dict[str, bytes]:
    out = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as fh:
                out[os.path.relpath(path, root)] = fh.read()
    return out


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("demo") / "demo")
    shutil.copytree(DEMO, root)
    before = _snapshot(root)
    pending = ccmigrate("diff", root)
    applied = ccmigrate("apply", root, "--report", os.path.join(root, "..", "report.json"))
    after_diff = ccmigrate("diff", root)
    with open(os.path.join(root, "..", "report.json")) as fh:
        report = json.load(fh)
    return root, before, pending, applied, after_diff, report


def test_original_package_fails_to_lower_with_jax_errors():
    pkg = _import_fresh(os.path.join(DEMO, "src"))
    errors = {}
    for name in ENTRY_POINTS:
        try:
            lower(getattr(pkg, name), (8,))
        except Exception as exc:  # noqa: BLE001 - collecting jax's own errors
            errors[name] = f"{type(exc).__name__}: {exc}"
    assert set(errors) == {"scale", "tiled_sum", "quantize", "clip", "normalize"}
    assert "bad_cast" in errors["scale"]
    assert "backend_config unexpected type" in errors["tiled_sum"]
    assert "backend_config unexpected type" in errors["quantize"]


def test_diff_then_apply_exit_codes(migrated):
    _, _, pending, applied, after_diff, _ = migrated
    assert pending.returncode == 1, pending.stderr
    assert pending.stdout.startswith("--- ")
    assert applied.returncode == 0, applied.stderr
    assert after_diff.returncode == 0, after_diff.stderr
    assert after_diff.stdout == ""


def test_only_broken_file_changes_and_comments_survive(migrated):
    root, before, *_ = migrated
    after = _snapshot(root)
    changed = {path for path in before if before[path] != after[path]}
    assert changed == {os.path.join("src", "fastkernels", "ops.py")}
    ops = after[os.path.join("src", "fastkernels", "ops.py")].decode()
    assert "# read with nlohmann::json in scale.cc" in ops
    assert ops.count("import json\n") == 1


def test_rewritten_package_lowers_with_exact_config_bytes(migrated):
    root = migrated[0]
    pkg = _import_fresh(os.path.join(root, "src"))
    emitted = {name: custom_calls(lower(getattr(pkg, name), (8,))) for name in ENTRY_POINTS}
    assert all(len(calls) == 1 for calls in emitted.values())
    calls = {name: calls[0] for name, calls in emitted.items()}

    scale = calls["scale"]
    assert (scale.target, scale.api_version) == ("fastkernels_scale_f32", 3)
    assert scale.backend_config == b'{"alpha":2.0,"mode":"fast","sizes":[1,2]}'
    assert json.loads(scale.backend_config) == pkg.ops.SCALE_DEFAULTS

    tiled = calls["tiled_sum"]
    assert tiled.api_version == 2
    assert json.loads(tiled.backend_config) == dataclasses.asdict(pkg.configs.TileConfig(tile=64))
    assert tiled.backend_config == b'{"mode":"fast","tile":64,"unroll":4}'

    message = pkg.config_pb2.QuantizeConfig(bits=8, scale=0.5, block=[4, 4], mode="nearest")
    assert calls["quantize"].backend_config == message.SerializeToString(deterministic=True)

    assert calls["clip"].backend_config == b"[-1.0,1.0]"
    assert calls["clip"].api_version == 2

    normalize = calls["normalize"]
    assert normalize.api_version == 4 and normalize.backend_config is None
    assert sorted(normalize.attributes) == ["axis", "eps"]
    assert str(normalize.attributes["axis"]) == "0 : i64"

    assert calls["copy"].backend_config == b"\x01\x00copy"


def test_report_describes_each_change(migrated):
    report = migrated[-1]
    assert report["version"] == 1 and report["command"] == "apply"
    assert report["summary"]["changes"] == {"safe": 5, "unsafe": 0, "manual": 0}
    (entry,) = report["files"]
    assert entry["status"] == "changed" and entry["path"].endswith("ops.py")
    lines = sorted(c["line"] for c in entry["changes"])
    assert len(lines) == 5
    for change in entry["changes"]:
        assert change["rule"] == "backend-config"
        assert change["safety"] == "safe" and change["applied"] is True
        assert change["after"] and change["before"] != change["after"]
        assert change["kernel_receives"]
