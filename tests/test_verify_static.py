"""Verification without jax: the site scanner, entry-point specs, config comparison,
module locations, and ``verify --static`` (which must import nothing)."""

from __future__ import annotations

import json
import os
import textwrap

import pytest

from codemods.verify import configs
from codemods.verify.entry_points import ArraySpec, SpecError, parse_entry_points
from codemods.verify.runner import SiteStatus, VerifyReport, module_location
from codemods.verify.sites import scan_source
from tests.helpers import TESTDATA, ccmigrate


def _scan(code: str, path: str = "/tmp/mod.py"):
    return scan_source(path, textwrap.dedent(code).encode())


def test_every_builder_spelling_is_a_site_with_its_line_and_target():
    sites = _scan(
        '''
        import jax
        import jax.extend as jex
        from jax._src.interpreters import mlir as M
        from jaxlib.hlo_helpers import custom_call as cc
        from jax.extend.mlir.dialects import stablehlo as hlo
        from jaxlib.mlir.dialects import mhlo
        from jax.lib import xla_client

        def rule(ctx, x, name):
            a = M.custom_call(
                "t1", result_types=[], operands=[x], backend_config={"a": 1})
            b = cc(b"t2", [], [x])
            c = hlo.CustomCallOp([], [x], call_target_name=ir.StringAttr.get("t3"))
            d = mhlo.CustomCallOp([], [x], call_target_name="t4")
            e = xla_client.ops.CustomCallWithLayout(ctx, b"t5", operands=())
            return jax.ffi.ffi_lowering(name)(ctx, x)

        def call(x):
            return jex.ffi.ffi_call("t6", x)(x)
        '''
    )
    assert [(s.line, s.end_line, s.target) for s in sites] == [
        (11, 12, "t1"), (13, 13, "t2"), (14, 14, "t3"), (15, 15, "t4"), (16, 16, "t5"), (17, 17, None), (20, 20, "t6"),
    ]
    assert sites[0].builder == "jax._src.interpreters.mlir.custom_call"
    assert (sites[0].function_start, sites[0].function_end) == (10, 17)
    assert sites[-1].builder == "jax.extend.ffi.ffi_call"


def test_names_that_only_look_like_builders_are_not_sites():
    sites = _scan(
        '''
        from jax.interpreters import mlir

        def custom_call(*args, **kwargs):
            return None

        def rule(ctx, x):
            custom_call("not_a_site")
            other.custom_call("not_a_site_either")
            return mlir.custom_call("real", result_types=[], operands=[x])
        '''
    )
    assert [(s.line, s.target) for s in sites] == [(10, "real")]


def test_calls_through_a_partial_of_a_builder_are_sites():
    """The extending-jax tutorial binds the builder with its fixed arguments first; each
    call of that name builds a custom call (and keeps doing so once migrated)."""
    sites = _scan(
        '''
        import functools
        import jax
        from jaxlib import hlo_helpers

        def _lowering(ctx, x, *, platform):
            custom_call = functools.partial(hlo_helpers.custom_call, b"kepler_f32", result_types=[x.type])
            if platform == "cpu":
                return custom_call(operands=[x]).results
            return custom_call(
                operands=[x], backend_config=b"d").results

        def _migrated(ctx, x, name):
            call = functools.partial(jax.ffi.build_ffi_lowering_function, name, api_version=2)
            return call(operand_layouts=[None])(ctx, x)

        def unrelated(ctx, x):
            custom_call = functools.partial(print, "not a builder")
            return custom_call(x)
        '''
    )
    assert [(s.line, s.end_line, s.target, s.builder) for s in sites] == [
        (9, 9, "kepler_f32", "jaxlib.hlo_helpers.custom_call"),
        (10, 11, "kepler_f32", "jaxlib.hlo_helpers.custom_call"),
        (15, 15, None, "jax.ffi.build_ffi_lowering_function"),
    ]


def test_a_file_without_trigger_bytes_is_not_parsed():
    assert scan_source("/tmp/x.py", b"this is not python (") == []


def test_entry_point_specs():
    entries = parse_entry_points(
        {
            "pkg.ops:scale": ["f32[8,8]", 3],
            "pkg.ops:norm": {"args": ["bf16[]"], "kwargs": {"eps": 1e-6, "w": "i32[4]"}},
            "pkg.ops:Model.both": [{"args": ["f32[2]"]}, {"args": ["f32[2]"], "kwargs": {"mode": "x"}}],
        }
    )
    assert [e.name for e in entries] == ["pkg.ops:scale", "pkg.ops:norm", "pkg.ops:Model.both", "pkg.ops:Model.both"]
    assert entries[0].args == (ArraySpec("float32", (8, 8)), 3)
    assert entries[1].args == (ArraySpec("bfloat16", ()),)
    assert dict(entries[1].kwargs) == {"eps": 1e-6, "w": ArraySpec("int32", (4,))}
    assert entries[0].to_json() == {"function": "scale", "args": [{"array": ["float32", [8, 8]]}, {"static": 3}], "kwargs": {}}
    for bad in ({"no_colon": []}, {"m:f": {"argz": []}}, {"m:f": ["q7[2]"]}, {"m:f": 3}):
        with pytest.raises(SpecError):
            parse_entry_points(bad)


@pytest.mark.parametrize(
    "original, new, expected",
    [
        ({"kind": "value", "value": {"b": [1, 2], "a": 2.0}}, {"kind": "bytes", "hex": b'{"a":2.0,"b":[1,2]}'.hex()}, True),
        ({"kind": "value", "value": {"a": 2.0}}, {"kind": "bytes", "hex": b'{"a":3.0}'.hex()}, False),
        ({"kind": "value", "value": {"a": 2.0}}, {"kind": "bytes", "hex": b'"{\\"a\\":2.0}"'.hex()}, False),  # encoded twice
        ({"kind": "bytes", "hex": "00ff"}, {"kind": "bytes", "hex": "00ff"}, True),
        ({"kind": "proto", "hex": "0801"}, {"kind": "bytes", "hex": "0801"}, True),
        ({"kind": "proto", "hex": "0801"}, {"kind": "bytes", "hex": "0802"}, False),
        ({"kind": "value", "value": {"a": 2.0}, "attrs": {"a": "2.0 : f64"}}, {"kind": "attrs", "attrs": {"a": "2.0 : f64"}}, True),
        ({"kind": "none"}, {"kind": "bytes", "hex": ""}, True),
        ({"kind": "repr", "repr": "<object>"}, {"kind": "bytes", "hex": "00"}, None),
    ],
)
def test_config_preservation(original, new, expected):
    assert configs.preserved(original, new) is expected


def test_describe_plain_values_dataclasses_and_bytes():
    import dataclasses

    @dataclasses.dataclass
    class Cfg:
        mode: str
        sizes: tuple = (1, 2)

    assert configs.describe(Cfg("fast"))["value"] == {"mode": "fast", "sizes": [1, 2]}
    assert configs.describe(b"\x00\xff") == {"kind": "bytes", "hex": "00ff"}
    assert configs.describe(object())["kind"] == "repr"


def test_module_location(tmp_path):
    pkg = tmp_path / "src" / "pkg" / "sub"
    pkg.mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "ops.py").write_text("")
    assert module_location(str(pkg / "ops.py")) == (str(tmp_path / "src"), "pkg.sub.ops", [str(tmp_path / "src" / "pkg")])
    assert module_location(str(pkg / "__init__.py"))[1] == "pkg.sub"
    ns = tmp_path / "src" / "nspkg"
    ns.mkdir()
    (ns / "mod.py").write_text("")
    assert module_location(str(ns / "mod.py"))[:2] == (str(tmp_path / "src"), "nspkg.mod")


def test_exit_codes():
    from codemods.verify.sites import Site

    site = Site("/x.py", 1, 1, "jax.ffi.ffi_call", "t")
    unreached = VerifyReport([SiteStatus(site, "cpu", "unreached")], [], [], ["cpu"])
    assert unreached.exit_code() == 0 and unreached.exit_code(strict=True) == 1
    failed = VerifyReport([SiteStatus(site, "cpu", "failed", "boom")], [], [], ["cpu"])
    assert failed.exit_code() == 1
    assert VerifyReport([], [], ["x.py: cannot parse"], ["cpu"]).exit_code() == 2
    changed = VerifyReport([SiteStatus(site, "cpu", "verified", config_preserved=False)], [], [], ["cpu"])
    assert changed.exit_code() == 1


def test_static_mode_lists_sites_without_importing(tmp_path):
    # The hostile package would exit, crash or hang the process that imported it.
    report = tmp_path / "static.json"
    proc = ccmigrate("verify", "--static", "--report", str(report), os.path.join(TESTDATA, "verify", "hostile"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(report.read_text())
    assert {os.path.basename(s["path"]) for s in data["sites"]} >= {"exits.py", "segv.py", "hangs.py", "hog.py"}
    assert all(s["status"] == "static" and s["platform"] is None for s in data["sites"])
    assert "nothing was imported" in proc.stdout


def test_bad_paths_are_tool_errors(tmp_path):
    (tmp_path / "broken.py").write_text("def f(:\n    custom_call(\n")
    proc = ccmigrate("verify", "--static", str(tmp_path / "missing"), str(tmp_path / "broken.py"))
    assert proc.returncode == 2
    assert "missing" in proc.stderr and "broken.py: cannot parse" in proc.stderr


def test_nesting_python_refuses_is_a_tool_error_and_the_other_sites_are_listed(tmp_path):
    site = "from jax.interpreters import mlir\n\ndef rule(ctx, x):\n    return mlir.custom_call('k', result_types=[], operands=[x])\n"
    (tmp_path / "deep.py").write_text(site + "total = 1" + " + 1" * 10_000 + "\n")
    (tmp_path / "fine.py").write_text(site)
    report = tmp_path / "static.json"
    proc = ccmigrate("verify", "--static", "--report", str(report), str(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [f"{tmp_path / 'deep.py'}: cannot parse: nesting too deep"]
    assert [(os.path.basename(s["path"]), s["line"]) for s in json.loads(report.read_text())["sites"]] == [("fine.py", 4)]


def test_syntax_newer_than_the_interpreter_still_gives_the_sites_lines():
    """LibCST parses a ``type`` statement on Python 3.11, whose own parser (used for the
    lines) refuses it: LibCST's positions give them instead."""
    code = "type Grid = int\nfrom jax.interpreters import mlir\n\ndef rule(ctx, x):\n    return mlir.custom_call(\n        'k', result_types=[], operands=[x])\n"
    (site,) = scan_source("/tmp/newer.py", code.encode())
    assert (site.line, site.end_line, site.target) == (5, 6, "k")


def test_a_package_named_like_an_installed_one_is_taken_as_part_of_the_namespace_above(tmp_path):
    # sphericart-jax's layout: python/sphericart/ is a namespace package (no __init__.py)
    # holding the regular package ``jax``: the module is sphericart.jax.ops, not jax.ops.
    pkg = tmp_path / "python" / "sphericart" / "jax"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "ops.py").write_text("")
    assert module_location(str(pkg / "ops.py")) == (
        str(tmp_path / "python"), "sphericart.jax.ops", [str(tmp_path / "python" / "sphericart")])
    # A package of its own name stays as it is.
    own = tmp_path / "mykernels"
    own.mkdir()
    (own / "__init__.py").write_text("")
    (own / "ops.py").write_text("")
    assert module_location(str(own / "ops.py"))[:2] == (str(tmp_path), "mykernels.ops")


@pytest.mark.parametrize(
    "where, text",
    [
        ("setup.py", 'ext_modules = [Pybind11Extension("fastlib_cpp", ["src/fastlib.cpp"])]\n'),
        ("setup.py", "Extension(\n    'fastlib_cpp', sources=['fastlib.cc'])\n"),
        ("CMakeLists.txt", "pybind11_add_module(fastlib_cpp src/fastlib.cpp)\n"),
        ("CMakeLists.txt", "nanobind_add_module(fastlib_cpp NB_STATIC fastlib.cc)\n"),
        ("src/fastlib.cpp", "PYBIND11_MODULE(fastlib_cpp, m) {\n  m.def(\"scale\", &scale);\n}\n"),
        ("csrc/bind.cc", "NB_MODULE(fastlib_cpp, m) { }\n"),
        ("fastlib_cpp.pyx", "# cython\nPyInit_fastlib_cpp\n"),
    ],
)
def test_a_top_level_extension_the_project_builds_is_stubbed(tmp_path, where, text):
    """``import fastlib_cpp`` beside the module, built by the project's own build files:
    a missing top-level module stands in only when the project declares it."""
    from codemods.verify import stubs

    (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / where).write_text(text)
    root = tmp_path / "python"
    root.mkdir()
    found = stubs.missing_native(ModuleNotFoundError("No module named 'fastlib_cpp'", name="fastlib_cpp"), [], [str(root)])
    assert found == "fastlib_cpp"
    # Another missing top-level module (a dependency not installed) is a real failure.
    other = ModuleNotFoundError("No module named 'scipyy'", name="scipyy")
    assert stubs.missing_native(other, [], [str(root)]) is None
    assert stubs.missing_native(ModuleNotFoundError("x", name="fastlib_cpp"), [], []) is None


def test_what_a_stand_in_returns_is_empty_bytes_and_still_a_stand_in():
    from codemods.verify import stubs

    module = stubs.StandInModule("fastlib_gpu")
    descriptor = module.build_descriptor(3, 4)
    assert isinstance(descriptor, bytes) and descriptor == b"" and stubs.is_stand_in(descriptor)
    assert stubs.is_stand_in(module.registrations) and list(module.registrations().items()) == []
    assert stubs.is_stand_in(descriptor.anything()) and int(descriptor) == 0 and bool(descriptor)
    assert repr(descriptor) == "<stand-in for fastlib_gpu.build_descriptor()>"
