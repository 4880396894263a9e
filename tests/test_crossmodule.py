"""Changes linked across modules: translation rules registered in one module and defined
in another (testdata/repos/split_rules), and a removed custom_call builder re-exported by a
compatibility module for the op modules that call it (testdata/repos/reexport_compat).
Linked files change together through the real command line, or neither does, and the
rewritten package imports and lowers with the installed jax."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import shutil
import textwrap
import stat
import sys

import pytest

pytest.importorskip("jax")
from codemods.context import Options  # noqa: E402
from codemods.engine import run  # noqa: E402
from codemods.rule import Safety  # noqa: E402
from codemods.rules.custom_call_api import CustomCallApi  # noqa: E402
from codemods.rules.hlo_helpers import HloHelpers  # noqa: E402
from codemods.rules.xla_translation_rule import XlaTranslationRule  # noqa: E402
from codemods.writer import write_all  # noqa: E402
from tests.helpers import TESTDATA, ccmigrate  # noqa: E402
from tests.lowering import custom_calls, lower  # noqa: E402

BEFORE = os.path.join(TESTDATA, "repos", "split_rules")
AFTER = os.path.join(TESTDATA, "repos", "split_rules.expected")
OPTIONS = Options(target_jax=(0, 10, 2), every_rule=False)
#: The engine run in this process: the one rule these files need (the CLI runs them all).
RULES = [XlaTranslationRule]


def tree(root: str) -> dict[str, bytes]:
    found = {}
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            path = os.path.join(directory, name)
            with open(path, "rb") as fh:
                found[os.path.relpath(path, root)] = fh.read()
    return found


@pytest.fixture
def repo(tmp_path) -> str:
    copy = str(tmp_path / "split_rules")
    shutil.copytree(BEFORE, copy)
    return copy


@contextlib.contextmanager
def imported(root: str, name: str):
    """Import ``name`` from the package tree at ``root``, forgetting it afterwards."""
    sys.path.insert(0, root)
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(root)
        top = name.split(".")[0]
        for loaded in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
            del sys.modules[loaded]


def messages(results, path_end: str, safety: Safety) -> list[str]:
    return [c.message for r in results if r.path.endswith(path_end) for c in r.changes if c.safety is safety]


def test_apply_migrates_both_modules_and_the_result_lowers(repo, tmp_path) -> None:
    report = tmp_path / "report.json"
    # --annotate: the pair left manual must get the same TODO comments on every run.
    first = ccmigrate("apply", "--annotate", "-j", "2", "--report", str(report), repo)
    assert first.returncode == 0, first.stderr
    assert tree(repo) == tree(AFTER)
    data = json.loads(report.read_text())
    assert data["summary"]["files_failed"] == 0
    by_path = {os.path.relpath(f["path"], repo): f for f in data["files"]}
    registration = [c for c in by_path[os.path.join("fastkern", "sorted_ops.py")]["changes"] if "registered rule" in c["message"]]
    assert [c["safety"] for c in registration] == ["manual"]
    assert "defined in `backends/sorting.py`" in registration[0]["message"]
    assert "it uses xla_client.ops.Sort" in registration[0]["message"]

    second = ccmigrate("apply", "--annotate", "-j", "1", repo)
    assert second.returncode == 0, second.stderr
    assert "0 rewritten" in second.stderr
    assert tree(repo) == tree(AFTER)

    with imported(repo, "fastkern.primitives") as primitives:
        (cpu,) = custom_calls(lower(lambda x: primitives.scale(x, 2.5), (4, 3), platform="cpu"))
        (gpu,) = custom_calls(lower(lambda x: primitives.scale(x, 2.5), (4, 3), platform="cuda"))
    # The partial's bytes target, the scalar constant as first operand, row-major layouts.
    assert (cpu.target, cpu.api_version, cpu.backend_config) == ("fastkern_scale_f32", 1, b"scale-cpu")
    assert (cpu.operand_layouts, cpu.result_layouts) == ([[], [1, 0]], [[1, 0]])
    assert (gpu.target, gpu.api_version, gpu.backend_config) == ("fastkern_scale_gpu", 1, b"2.5")
    assert (gpu.operand_layouts, gpu.result_layouts) == ([[1, 0]], [[1, 0]])


def test_a_registration_whose_defining_module_is_not_in_the_run_stays(repo) -> None:
    results, _ = run([os.path.join(repo, "fastkern", "primitives.py")], RULES, OPTIONS)
    (result,) = results
    assert not result.changed and result.error is None
    found = messages(results, "primitives.py", Safety.MANUAL)
    assert any("defined in `backends/cpu.py`" in m and "not among the files this run migrates" in m for m in found)
    assert any("defined in `backends/gpu.py`" in m for m in found)


def test_a_failing_module_keeps_its_registration_and_the_other_pair_converts(repo) -> None:
    gpu = os.path.join(repo, "fastkern", "backends", "gpu.py")
    with open(gpu, "ab") as fh:
        fh.write(b"\ndef broken(:\n")
    results, _ = run([repo], RULES, OPTIONS)
    by_name = {os.path.basename(r.path): r for r in results}
    assert by_name["gpu.py"].error and by_name["cpu.py"].changed
    updated = by_name["primitives.py"].updated.decode()
    assert 'mlir.register_lowering(scale_p, partial(backends.cpu.encode, b"fastkern_scale_f32"), platform="cpu")' in updated
    assert 'xla.register_translation(scale_p, encode_gpu, platform="cuda")' in updated
    assert any("`backends/gpu.py` cannot take its part (it is not migrated: syntax error" in m
               for m in messages(results, "primitives.py", Safety.MANUAL))


def test_a_suppressed_definition_keeps_its_registration(repo) -> None:
    cpu = os.path.join(repo, "fastkern", "backends", "cpu.py")
    with open(cpu, "rb") as fh:
        source = fh.read()
    with open(cpu, "wb") as fh:
        fh.write(source.replace(b"return xla_client.ops.CustomCallWithLayout(",
                                b"return xla_client.ops.CustomCallWithLayout(  # ccmigrate: ignore"))
    results, _ = run([repo], RULES, OPTIONS)
    by_name = {os.path.basename(r.path): r for r in results}
    assert not by_name["cpu.py"].changed
    updated = by_name["primitives.py"].updated.decode()
    assert 'xla.backend_specific_translations["cpu"][scale_p] = partial(backends.cpu.encode' in updated
    assert "mlir.register_lowering(scale_p, encode_gpu" in updated
    assert any("suppressed by a `# ccmigrate: ignore` comment" in m for m in messages(results, "primitives.py", Safety.MANUAL))


def test_the_index_takes_part_only_with_a_registration_elsewhere(repo) -> None:
    # The same rule file migrated alone keeps the one-file behaviour: no project index.
    cpu = os.path.join(repo, "fastkern", "backends", "cpu.py")
    (result,), _ = run([cpu], RULES, OPTIONS)
    assert not result.changed and not result.claims
    assert any("not registered as a translation rule in this module" in m for m in messages([result], "cpu.py", Safety.MANUAL))


def _write_all_with_one_read_only(results, path: str) -> None:
    """``apply``'s writes while ``path`` cannot be written."""
    os.chmod(path, stat.S_IRUSR | stat.S_IRGRP)
    try:
        write_all(results, allow_dirty=True)
    finally:
        os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)


def test_linked_files_are_written_all_or_none(repo) -> None:
    before = tree(repo)
    results, _ = run([repo], RULES, OPTIONS)
    _write_all_with_one_read_only(results, os.path.join(repo, "fastkern", "backends", "gpu.py"))
    assert tree(repo) == before
    by_name = {os.path.basename(r.path): r for r in results}
    assert "read-only" in by_name["gpu.py"].error
    for name in ("cpu.py", "primitives.py"):
        assert "go with those of" in by_name[name].error and "gpu.py" in by_name[name].error
        assert not any(c.applied for c in by_name[name].changes)


def two_module_package(root, rules: str, import_line: str, registered: str, rest: str = "") -> str:
    """``kern/rules.py`` holding ``rules`` and ``kern/registry.py`` registering ``registered``
    (bound by ``import_line``) for a primitive; the package's directory."""
    package = root / "kern"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rules.py").write_text("import numpy as np\nfrom jax.lib import xla_client\n\n\n" + rules)
    (package / "registry.py").write_text(
        f"from jax.extend.core import Primitive\nfrom jax.interpreters import xla\n\n{import_line}\n\n"
        f"id_p = Primitive(\"kern_id\")\nxla.backend_specific_translations[\"cpu\"][id_p] = {registered}\n{rest}"
    )
    return str(package)


def test_a_rule_the_registering_module_also_calls_stays_in_both(tmp_path) -> None:
    two_module_package(
        tmp_path,
        "def encode(c, x):\n    return xla_client.ops.CustomCall(c, b\"kern_id\", operands=(x,), shape=c.get_shape(x))\n",
        "from .rules import encode", "encode", "\n\ndef debug_build(c, x):\n    return encode(c, x)\n",
    )
    results, _ = run([str(tmp_path)], RULES, OPTIONS)
    assert not any(r.changed for r in results)
    assert any("also uses `encode` other than to register it, a use" in m for m in messages(results, "registry.py", Safety.MANUAL))
    assert any("`encode` is also used other than as a registered rule in `registry.py`" in m
               for m in messages(results, "rules.py", Safety.MANUAL))


def test_a_rule_registered_with_different_bound_arguments_stays_and_says_which(tmp_path) -> None:
    # jax-finufft (2022) registered partial(rule, "cpu") and, for one primitive on the GPU,
    # partial(rule, "gpu", 2): the second handed the rule 2 as its translation context.
    two_module_package(
        tmp_path,
        "def encode(platform, c, x):\n"
        "    return xla_client.ops.CustomCall(c, b\"kern_id\", operands=(x,), shape=c.get_shape(x))\n",
        "from functools import partial\nfrom .rules import encode", 'partial(encode, "cpu")',
        'xla.backend_specific_translations["gpu"][id_p] = partial(encode, "gpu", 2)\n',
    )
    results, _ = run([str(tmp_path)], RULES, OPTIONS)
    assert not any(r.changed for r in results)
    why = ("`encode` is registered with 1 and 2 arguments bound by functools.partial in different places, so the "
           "translation context reaches a different parameter in each (at most one of them can have lowered)")
    assert any(why in m for m in messages(results, "rules.py", Safety.MANUAL))
    assert sum(why in m for m in messages(results, "registry.py", Safety.MANUAL)) == 2


def test_modules_read_before_the_module_registering_their_rules_are_migrated_with_the_index(repo) -> None:
    # The defining modules come first: the workers start on them, then the registering
    # module names them, and they are migrated again once every file is indexed.
    fastkern = os.path.join(repo, "fastkern")
    paths = [os.path.join(fastkern, "backends"), *(os.path.join(fastkern, n) for n in ("primitives.py", "sorted_ops.py"))]
    result = ccmigrate("apply", "--annotate", "-j", "2", *paths)
    assert result.returncode == 0, result.stderr
    assert tree(repo) == tree(AFTER)


def test_a_rule_handing_its_builder_to_a_private_helper_converts_with_it(tmp_path) -> None:
    package = two_module_package(
        tmp_path,
        "def _encode(c, x):\n"
        "    s = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))\n"
        "    return xla_client.ops.CustomCallWithLayout(c, b\"kern_id\", operands=(x,), shape_with_layout=s,\n"
        "                                               operand_shapes_with_layout=(s,))  # ccmigrate: ignore\n\n\n"
        "def encode(c, x):\n    return _encode(c, x)\n",
        "from . import rules", "rules.encode",
    )
    results, _ = run([str(tmp_path)], RULES, OPTIONS)
    # The helper's custom call is suppressed: neither the rule nor its registration changes.
    assert not any(r.changed for r in results)
    assert any("suppressed" in m for m in messages(results, "registry.py", Safety.MANUAL))
    rules = os.path.join(package, "rules.py")
    with open(rules) as fh:
        text = fh.read()
    with open(rules, "w") as fh:
        fh.write(text.replace("  # ccmigrate: ignore", ""))
    results, _ = run([str(tmp_path)], RULES, OPTIONS)
    by_name = {os.path.basename(r.path): r for r in results}
    assert "mlir.register_lowering(id_p, rules.encode, platform=\"cpu\")" in by_name["registry.py"].updated.decode()
    updated = by_name["rules.py"].updated.decode()
    assert "def encode(ctx, x):\n    return _encode(ctx, x)" in updated and "jax.ffi.ffi_lowering(" in updated


def test_a_linked_file_failing_while_written_puts_back_the_others(repo, monkeypatch) -> None:
    before = tree(repo)
    results, _ = run([repo], RULES, OPTIONS)
    import codemods.writer as writer

    real = writer.write_atomic

    def failing(path, data, expected):
        if path.endswith("gpu.py"):
            raise OSError(28, "No space left on device")
        real(path, data, expected)

    monkeypatch.setattr(writer, "write_atomic", failing)
    write_all(results, allow_dirty=True)
    # Files written before gpu.py failed are put back: the package is as it was.
    assert tree(repo) == before
    by_name = {os.path.basename(r.path): r for r in results}
    assert "No space left on device" in by_name["gpu.py"].error
    assert all("go with those of" in by_name[n].error for n in ("cpu.py", "primitives.py"))


# -- a removed builder re-exported by a compatibility module -------------------------------
REEXPORT_BEFORE = os.path.join(TESTDATA, "repos", "reexport_compat")
REEXPORT_AFTER = os.path.join(TESTDATA, "repos", "reexport_compat.expected")
#: The rules the re-export concerns: custom-call-api decides, hlo-helpers would report it.
REEXPORT_RULES = [CustomCallApi, HloHelpers]
REEXPORT_OPTIONS = Options(target_jax=(0, 10, 2))


@pytest.fixture
def compat_repo(tmp_path) -> str:
    copy = str(tmp_path / "reexport_compat")
    shutil.copytree(REEXPORT_BEFORE, copy)
    return copy


def edit_file(path: str, old: str, new: str) -> None:
    with open(path) as fh:
        text = fh.read()
    assert old in text
    with open(path, "w") as fh:
        fh.write(text.replace(old, new))


def compat_results(repo: str, paths=None) -> dict:
    results, _ = run(paths or [repo], REEXPORT_RULES, REEXPORT_OPTIONS)
    return {os.path.relpath(r.path, repo): r for r in results}


COMPAT = os.path.join("commjax", "_src", "jax_compat.py")
ALLSUM = os.path.join("commjax", "_src", "ops", "allsum.py")
BARRIER = os.path.join("commjax", "_src", "ops", "barrier.py")


def test_a_reexport_every_importer_migrates_is_deleted_and_the_package_lowers(compat_repo, tmp_path) -> None:
    with pytest.raises(ModuleNotFoundError, match="jaxlib.hlo_helpers"):
        with imported(compat_repo, "commjax"):
            pass
    report = tmp_path / "report.json"
    first = ccmigrate("apply", "-j", "2", "--report", str(report), compat_repo)
    assert first.returncode == 0, first.stderr
    assert tree(compat_repo) == tree(REEXPORT_AFTER)
    data = json.loads(report.read_text())
    by_path = {os.path.relpath(f["path"], compat_repo): f for f in data["files"]}
    (deleted,) = by_path[COMPAT]["changes"]
    assert (deleted["rule"], deleted["safety"], deleted["applied"]) == ("custom-call-api", "safe", True)
    assert "(`ops/allsum.py`, `ops/barrier.py`) has all its uses migrated" in deleted["message"]
    assert "nothing in the project uses it any more (the module is private)" in deleted["message"]

    second = ccmigrate("apply", "-j", "1", compat_repo)
    assert second.returncode == 0, second.stderr
    assert "0 rewritten" in second.stderr
    assert tree(compat_repo) == tree(REEXPORT_AFTER)

    with imported(compat_repo, "commjax") as commjax:
        allsum, barrier = custom_calls(lower(lambda x: commjax.barrier(commjax.allsum(x)), (4, 3), platform="cpu"))
    # The element count as a scalar first operand, row-major arrays, the legacy api_version.
    assert (allsum.target, allsum.api_version, allsum.backend_config) == ("commjax_allsum", 2, b"")
    assert (allsum.operand_layouts, allsum.result_layouts) == ([[], [1, 0]], [[1, 0]])
    assert (barrier.target, barrier.api_version) == ("commjax_barrier", 2)
    assert (barrier.operand_layouts, barrier.result_layouts) == ([[1, 0]], [[1, 0]])


def test_a_reexport_an_importer_still_uses_stays_and_names_it(compat_repo, tmp_path) -> None:
    allsum = os.path.join(compat_repo, ALLSUM)
    with open(allsum, "a") as fh:
        fh.write("\n\ndef _debug_lowering(ctx, x, **options):\n"
                 "    return hlo_custom_call(b\"commjax_debug\", operands=[x], **options).results\n")
    report = tmp_path / "report.json"
    # --annotate: the TODO comments must read the same on the next run, once the other uses are gone.
    first = ccmigrate("apply", "--annotate", "--report", str(report), compat_repo)
    assert first.returncode == 0, first.stderr
    after_first = tree(compat_repo)
    assert after_first[BARRIER] == tree(REEXPORT_AFTER)[BARRIER]
    by_path = {os.path.relpath(f["path"], compat_repo): f for f in json.loads(report.read_text())["files"]}
    # One finding at each import of the guard (hlo-helpers leaves them to custom-call-api).
    compat = by_path[COMPAT]["changes"]
    assert [(c["rule"], c["safety"], c["line"]) for c in compat] == [("custom-call-api", "manual", 16), ("custom-call-api", "manual", 18)]
    assert "from the removed jaxlib.mhlo_helpers (gone in jax 0.4.2)" in compat[1]["message"]
    assert "it stays because `ops/allsum.py`, which imports it, cannot take its part (it has uses of " \
           "`hlo_custom_call` that cannot be migrated automatically" in compat[0]["message"]
    kept = after_first[COMPAT].decode()
    assert "    # TODO(ccmigrate): [custom-call-api] `hlo_custom_call` is imported" in kept
    assert "from jaxlib.hlo_helpers import custom_call as hlo_custom_call" in kept
    # The importer's other site is migrated all the same; its import stays for the one left.
    updated = after_first[ALLSUM].decode()
    assert "jax.ffi.ffi_lowering(" in updated and "from ..jax_compat import default_layouts, hlo_custom_call" in updated

    second = ccmigrate("apply", "--annotate", compat_repo)
    assert second.returncode == 0, second.stderr
    assert tree(compat_repo) == after_first


def test_a_suppressed_site_in_an_importer_keeps_the_reexport(compat_repo) -> None:
    edit_file(os.path.join(compat_repo, BARRIER), "has_side_effect=True)]", "has_side_effect=True)]  # ccmigrate: ignore")
    results = compat_results(compat_repo)
    assert not results[COMPAT].changed and not results[BARRIER].changed and results[ALLSUM].changed
    kept = [c.message for c in results[COMPAT].changes if c.safety is Safety.MANUAL][0]
    assert "`ops/barrier.py`, which imports it, cannot take its part (its change at line 15 is suppressed" in kept


def test_an_importer_not_in_the_run_keeps_the_reexport(compat_repo) -> None:
    results = compat_results(compat_repo, [os.path.join(compat_repo, COMPAT), os.path.join(compat_repo, BARRIER)])
    assert not results[COMPAT].changed and results[BARRIER].changed
    kept = results[COMPAT].changes[0].message
    assert "`ops/allsum.py` also refers to `hlo_custom_call` and is not among the files this run migrates" in kept


def test_a_reexport_no_module_imports_is_deleted(compat_repo) -> None:
    shutil.rmtree(os.path.join(compat_repo, "commjax", "_src", "ops"))
    results = compat_results(compat_repo)
    (deleted,) = results[COMPAT].changes
    assert deleted.safety is Safety.SAFE and "no module of the project imports it" in deleted.message
    assert "if versiontuple" not in results[COMPAT].updated.decode()


def test_a_reexport_and_its_importers_are_written_all_or_none(compat_repo) -> None:
    before = tree(compat_repo)
    results, _ = run([compat_repo], REEXPORT_RULES, REEXPORT_OPTIONS)
    _write_all_with_one_read_only(results, os.path.join(compat_repo, ALLSUM))
    assert tree(compat_repo) == before
    by_name = {os.path.basename(r.path): r for r in results}
    assert "read-only" in by_name["allsum.py"].error
    for name in ("jax_compat.py", "barrier.py"):
        assert "go with those of" in by_name[name].error


def test_a_reexport_in_a_package_init_imported_from_the_package_goes_too(compat_repo) -> None:
    # The guard moves into `_src/__init__.py`; the op modules import the name from the package.
    compat = os.path.join(compat_repo, COMPAT)
    with open(compat) as fh:
        text = fh.read()
    guard = text.index("# Remove once")
    with open(compat, "w") as fh:
        fh.write(text[:guard])
    with open(os.path.join(compat_repo, "commjax", "_src", "__init__.py"), "w") as fh:
        fh.write("import jaxlib\n\nfrom .jax_compat import versiontuple\n\n" + text[guard:])
    old = "from ..jax_compat import default_layouts, hlo_custom_call"
    edit_file(os.path.join(compat_repo, ALLSUM), old, "from ..jax_compat import default_layouts\nfrom .. import hlo_custom_call")
    edit_file(os.path.join(compat_repo, BARRIER), old, "from ..jax_compat import default_layouts\nfrom commjax._src import hlo_custom_call")
    results, _ = run([compat_repo], REEXPORT_RULES, REEXPORT_OPTIONS)
    write_all(results, allow_dirty=True)
    assert not any(r.error for r in results)
    after = tree(compat_repo)
    assert not any(b"hlo_custom_call" in after[name] for name in (ALLSUM, BARRIER, os.path.join("commjax", "_src", "__init__.py")))
    with imported(compat_repo, "commjax") as commjax:
        (call,) = custom_calls(lower(commjax.barrier, (2,), platform="cpu"))
    assert call.target == "commjax_barrier"


# mpi4jax's layout: the constant helpers live in utils.py, the rules that call them elsewhere.
_HELPERS = b'''import numpy as _np

from jax.lib import xla_client


def xla_constant_intc(c, val):
    return xla_client.ops.Constant(c, _np.intc(val))


def xla_constant_uintptr(c, val):
    return xla_client.ops.Constant(c, _np.uintp(val))
'''
_OPS = b'''import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

from .utils import xla_constant_intc, xla_constant_uintptr

send_p = Primitive("send")


def handle_of(comm):
    return 7 if comm is None else comm


def send_xla_encode_cpu(c, x, *, comm, tag):
    nitems = np.prod(c.get_shape(x).dimensions(), dtype=int)
    return xla_client.ops.CustomCall(
        c,
        b"mpi_send",
        operands=(xla_constant_intc(c, nitems), x, xla_constant_intc(c, tag), xla_constant_uintptr(c, handle_of(comm))),
        shape=xla_client.Shape.array_shape(np.dtype(np.float32), (6,), (0,)),
        has_side_effect=True,
    )


xla.backend_specific_translations["cpu"][send_p] = send_xla_encode_cpu
'''


def test_constant_helpers_imported_from_another_module_are_inlined_and_converted(tmp_path) -> None:
    package = tmp_path / "commops"
    package.mkdir()
    (package / "__init__.py").write_bytes(b"")
    (package / "utils.py").write_bytes(_HELPERS)
    (package / "ops.py").write_bytes(_OPS)
    first = ccmigrate("apply", str(tmp_path))
    assert first.returncode == 0, first.stderr
    ops, utils = (package / "ops.py").read_text(), (package / "utils.py").read_text()
    # The rule gets the helpers' values; the helpers themselves build MLIR constants, so
    # neither module imports xla_client any more.
    assert "mlir.ir_constant(np.asarray(np.uintp(handle_of(comm))))" in ops
    assert "xla_client" not in ops and "xla_client" not in utils
    assert "return mlir.ir_constant(_np.asarray(_np.intc(val)))" in utils
    second = ccmigrate("apply", str(tmp_path))
    assert second.returncode == 0 and "0 rewritten" in second.stderr, second.stderr
    with imported(str(tmp_path), "commops.ops") as module:
        module.send_p.def_abstract_eval(lambda x, **params: x)
        lowered = lower(lambda x: module.send_p.bind(x, comm=None, tag=3), (6,))
        (call,) = custom_calls(lowered)
    assert (call.target, call.api_version) == ("mpi_send", 1)
    text = str(lowered)
    # The count (6), the tag and the handle as the XlaBuilder constants were: s32, s32, u64.
    assert "(tensor<i32>, tensor<6xf32>, tensor<i32>, tensor<ui64>) -> tensor<6xf32>" in text
    assert "stablehlo.constant dense<6> : tensor<i32>" in text and "dense<7> : tensor<ui64>" in text


HELPER_MODULE = '''from jaxlib.hlo_helpers import custom_call


def call_kernel(name, x):
    return custom_call(name, result_types=[x.type], operands=[x]).results


def _norm_lowering(ctx, x):
    return call_kernel("norm_f32", x)


def _norm_grad_lowering(ctx, g):
    return call_kernel("norm_grad_f32", g)
'''


def test_a_helper_takes_the_context_only_when_no_other_module_imports_it(tmp_path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kernels.py").write_text(HELPER_MODULE)
    (package / "ops.py").write_text("from .kernels import call_kernel\n\n\ndef op(ctx, x):\n    return call_kernel('op_f32', x)\n")
    (package / "unrelated.py").write_text("def call_kernel():\n    return None\n")  # its own, imports nothing
    rules = [CustomCallApi]
    results, _ = run([str(package / "kernels.py")], rules, OPTIONS)
    (result,) = results
    assert result.updated is None
    (manual,) = [c for c in result.changes if c.line == 5]
    assert manual.safety is Safety.MANUAL
    # A run hands this rule only files holding `custom_call`: ops.py would not pass its context.
    assert "since `ops.py` calls it but holds no `custom_call`, so a run does not migrate it" in manual.message
    (package / "ops.py").write_text("from .kernels import call_kernel\n\n\ndef op(ctx, x):\n    return [call_kernel('op_f32', x)]\n"
                                    "\n\nprint(call_kernel)  # custom_call\n")
    (result,), _ = run([str(package / "kernels.py")], rules, OPTIONS)
    assert "other modules of the project may use `call_kernel` (`ops.py` import it" in \
        [c for c in result.changes if c.line == 5][0].message

    (package / "ops.py").write_text("def op(ctx, x):\n    return x\n")
    (result,), _ = run([str(package / "kernels.py")], rules, OPTIONS)
    updated = result.updated.decode()
    assert "def call_kernel(ctx, name, x):" in updated
    assert 'call_kernel(ctx, "norm_f32", x)' in updated and 'call_kernel(ctx, "norm_grad_f32", g)' in updated
    assert ("jax.ffi.build_ffi_lowering_function(name, api_version=2, result_types=[x.type], "
            "skip_ffi_layout_processing=True, result_shapes=None)(ctx, x).results") in updated

    # One change switched off keeps all of them: a caller left without the context would break.
    (package / "kernels.py").write_text(HELPER_MODULE.replace('"norm_grad_f32", g)', '"norm_grad_f32", g)  # ccmigrate: ignore'))
    (result,), _ = run([str(package / "kernels.py")], rules, OPTIONS)
    assert result.updated is None
    assert any("a `# ccmigrate: ignore` comment switches off one of the changes it needs" in c.message
               for c in result.changes if c.safety is Safety.MANUAL)


CALLER_MODULE = '''"""TransformerEngine's layout: one wrapper picks the builder jax has, every
primitive's module calls it from its lowering rule."""
from jax.interpreters import mlir
from jax.interpreters.mlir import ir

try:
    from jaxlib.hlo_helpers import custom_call
except ImportError:
    pass


def custom_caller(name, operands, out_types, opaque, **kwargs):
    if hasattr(mlir, "custom_call"):
        out = mlir.custom_call(name, result_types=out_types, operands=operands, backend_config=opaque, **kwargs).results
    else:
        out = custom_call(name, result_types=out_types, operands=operands, backend_config=opaque, **kwargs).results
    return out
'''

SCALE_MODULE = '''import jax
from jax.interpreters import mlir
from jax.interpreters.mlir import ir

from .custom_call import custom_caller

scale_p = jax.extend.core.Primitive("te_scale")
scale_p.def_abstract_eval(lambda x: x)


def _scale_lowering(ctx, x):
    (aval,) = ctx.avals_out
    out_type = ir.RankedTensorType.get(aval.shape, mlir.dtype_to_ir_type(aval.dtype))
    out = custom_caller("te_scale_f32", [x], [out_type], b"\\x02", has_side_effect=True)
    return out


mlir.register_lowering(scale_p, _scale_lowering, platform="cpu")
'''


def _caller_package(root) -> str:
    package = root / "tepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "custom_call.py").write_text(CALLER_MODULE)
    (package / "scale.py").write_text(SCALE_MODULE)
    return str(root)


def test_a_helper_other_modules_call_takes_the_context_with_them_and_lowers(tmp_path) -> None:
    """The wrapper's branch the installed jax runs (it has neither builder) becomes the FFI
    builder with the context the helper now takes first; the other module's rule passes
    its own, a change linked to the helper's. Written and imported, the package lowers to
    the custom call the wrapper emitted; a second run changes nothing."""
    root = _caller_package(tmp_path)
    first = ccmigrate("apply", "-j", "2", root)
    assert first.returncode == 0, first.stderr
    helper = (tmp_path / "tepkg" / "custom_call.py").read_text()
    assert "def custom_caller(ctx, name, operands, out_types, opaque, **kwargs):" in helper
    assert "result_shapes=None, **kwargs)(ctx, *operands).results" in helper
    assert 'out = mlir.custom_call(name, result_types=out_types' in helper  # the branch older jax takes
    scale = (tmp_path / "tepkg" / "scale.py").read_text()
    assert 'custom_caller(ctx, "te_scale_f32", [x], [out_type], b"\\x02", has_side_effect=True)' in scale
    second = ccmigrate("apply", root)
    assert second.returncode == 0 and "0 rewritten" in second.stderr, second.stderr
    with imported(root, "tepkg.scale") as module:
        (call,) = custom_calls(lower(lambda x: module.scale_p.bind(x), (2, 3), platform="cpu"))
    assert (call.target, call.api_version, call.backend_config) == ("te_scale_f32", 2, b"\x02")


def test_a_helper_whose_caller_is_not_in_the_run_stays_with_it(tmp_path) -> None:
    """All or nothing: run on the wrapper's module alone, neither it nor its caller changes."""
    root = _caller_package(tmp_path)
    before = tree(root)
    results, _ = run([str(tmp_path / "tepkg" / "custom_call.py")], [CustomCallApi], OPTIONS)
    assert all(r.updated is None or r.updated == r.original for r in results)
    (manual,) = [c for r in results for c in r.changes if c.line == 16]
    assert manual.safety is Safety.MANUAL
    assert "`scale.py`, which calls it, cannot pass its context (it is not among the files this run migrates)" in manual.message
    assert tree(root) == before


def test_descriptor_builders_of_a_sibling_module_are_read(tmp_path) -> None:
    """A builder named like an extension's descriptor packer, defined in a project module:
    one returning a dict, or a NamedTuple class, is no bytes; one handing back another
    call's result still passes as the extension's bytes."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kinds.py").write_text(
        "from typing import NamedTuple\n\n\nclass Descriptor(NamedTuple):\n    n: int\n    k: int\n\n\n"
        "def build_descriptor(n):\n    return {'n': n}\n\n\ndef pack_descriptor(n):\n    return _ext.pack(n)\n")
    (package / "low.py").write_text(
        "from jax.interpreters import mlir\n\nfrom .kinds import Descriptor, build_descriptor, pack_descriptor\n\n\n"
        "def a(ctx, x):\n    return mlir.custom_call('a', result_types=[x.type], operands=[x], backend_config=Descriptor(2, 3))\n\n\n"
        "def b(ctx, x):\n    return mlir.custom_call('b', result_types=[x.type], operands=[x], backend_config=build_descriptor(2))\n\n\n"
        "def c(ctx, x):\n    return mlir.custom_call('c', result_types=[x.type], operands=[x], backend_config=pack_descriptor(2))\n")
    report = tmp_path / "report.json"
    done = ccmigrate("diff", "--select", "backend-config", "--report", str(report), str(package))
    assert done.returncode == 0, done.stderr
    (low,) = [f for f in json.loads(report.read_text())["files"] if f["path"].endswith("low.py")]
    assert [(c["line"], c["safety"]) for c in low["changes"]] == [(7, "unsafe"), (11, "unsafe")]


def test_descriptor_builders_qualified_unpacked_or_looked_up_are_the_extensions_bytes() -> None:
    """jaxDecomp unpacks ``ws, opaque = build_*_descriptor(...)``, jax-finufft picks its
    builder with ``getattr(ext, f"build_descriptor{suffix}")``, b3d qualifies the name
    (``..._descriptor_original``), pmwd binds one of two builders' results in each branch;
    a builder named for a dict stays unproven."""
    from tests.helpers import rewrite_source

    source = textwrap.dedent("""\
        from jax.interpreters import mlir
        from . import gpu_ops


        def a(ctx, x):
            ws, opaque = gpu_ops.build_fft_descriptor(3, 4)
            return mlir.custom_call("a", result_types=[], operands=[x], backend_config=opaque).results


        def b(ctx, x, suffix):
            desc = getattr(gpu_ops, f"build_descriptor{suffix}")(1, 2)
            return mlir.custom_call("b", result_types=[], operands=[x], backend_config=desc).results


        def c(ctx, x):
            desc = gpu_ops.build_fwd_descriptor_original(1, 2)
            return mlir.custom_call("c", result_types=[], operands=[x], backend_config=desc).results


        def d(ctx, x):
            desc = gpu_ops.build_fwd_descriptor_dict(1, 2)
            return mlir.custom_call("d", result_types=[], operands=[x], backend_config=desc).results


        def e(ctx, x):
            size, count = gpu_ops.build_fft_descriptor(3, 4)
            return mlir.custom_call("e", result_types=[], operands=[x], backend_config=count).results


        def f(ctx, x, kind):
            if kind == "r2c":
                opaque = gpu_ops.build_r2c_descriptor(3, 4)
            else:
                opaque = gpu_ops.build_c2c_descriptor(3, 4)
            return mlir.custom_call("f", result_types=[], operands=[x], backend_config=opaque).results
        """)
    result = rewrite_source(source.encode(), "low.py", ["--select", "backend-config"])
    assert result.error is None, result.error
    assert [(c.line, c.safety) for c in result.changes] == [(22, Safety.UNSAFE), (27, Safety.UNSAFE)]


BUILDER_HELPERS = os.path.join(TESTDATA, "repos", "xla_builder_helpers")


def test_xla_builder_rules_using_another_modules_helpers_migrate_and_lower(tmp_path) -> None:
    """An MPI binding of the XlaBuilder era: the builder unwrapped by a helper of its utils
    module, constants built by that module's helpers (one bound to a name), `_ops` imported
    from there, an array-and-token tuple result and a transpose handing its operands back."""
    repo = str(tmp_path / "xla_builder_helpers")
    shutil.copytree(BUILDER_HELPERS, repo)
    first = ccmigrate("apply", "-j", "2", repo)
    assert first.returncode == 0, first.stderr
    assert tree(repo) == tree(BUILDER_HELPERS + ".expected")
    second = ccmigrate("apply", "-j", "1", repo)
    assert second.returncode == 0 and "0 rewritten" in second.stderr, second.stderr

    import jax

    with imported(repo, "mpicoll") as mpicoll:
        def reduce(x):
            out, _ = mpicoll.Allreduce(x, op=3, comm=5, token=jax.lax.create_token())
            return out

        def transposed(x):
            return mpicoll.Allreduce(x, op=3, comm=5, token=jax.lax.create_token(), _transpose=True)[0]

        module = lower(reduce, (4, 3), platform="cpu")
        assert "custom_call" not in str(lower(transposed, (4, 3), platform="cpu"))
    text = str(module)
    (call,) = custom_calls(module)
    assert (call.target, call.api_version, call.backend_config) == ("mpi_allreduce", 1, b"")
    # No layouts given to the XlaBuilder: none given now; the item count and both MPI handles
    # as constants around the array, the token last; the array and a new token come back.
    assert call.operand_layouts is None and call.result_layouts is None
    line = next(line for line in text.splitlines() if "@mpi_allreduce" in line)
    assert "has_side_effect = true" in line and line.count("%") == 6
    assert line.rstrip().endswith("-> (tensor<4x3xf32>, !stablehlo.token)")
    for constant in ("dense<12> : tensor<i32>", "dense<3> : tensor<ui64>", "dense<5> : tensor<ui64>"):
        assert constant in text


def test_a_namespace_package_is_read_from_its_relative_imports(tmp_path) -> None:
    """The same modules without ``__init__.py`` files (a namespace package, or a snapshot
    that left them out): ``from ..utils import`` still names the module next door."""
    repo = str(tmp_path / "xla_builder_helpers")
    shutil.copytree(BUILDER_HELPERS, repo)
    for init in ("mpicoll/__init__.py", "mpicoll/collective_ops/__init__.py"):
        os.remove(os.path.join(repo, *init.split("/")))
    done = ccmigrate("apply", "-j", "1", repo)
    assert done.returncode == 0, done.stderr
    expected = {k: v for k, v in tree(BUILDER_HELPERS + ".expected").items() if not k.endswith("__init__.py")}
    assert tree(repo) == expected


def test_a_builder_unwrapped_by_a_helper_of_a_missing_module_says_where_it_is(tmp_path) -> None:
    """The same package without its utils module (a snapshot of one folder): the rule that
    unwraps its builder with ``c = _unpack_builder(c)`` stays, and says the helper's module
    was not found, not only that the parameter is reassigned. Nothing is half-converted."""
    repo = str(tmp_path / "xla_builder_helpers")
    shutil.copytree(BUILDER_HELPERS, repo)
    os.remove(os.path.join(repo, "mpicoll", "utils.py"))
    before = tree(repo)
    done = ccmigrate("diff", "--output-format", "json", repo)
    assert done.returncode == 1, done.stderr  # the other rewrites would still be made
    changes = [c for f in json.loads(done.stdout)["files"] for c in f["changes"]]
    rules = [c for c in changes if "translation rule `mpi_allreduce" in c["message"]]
    assert rules and all(c["safety"] == "manual" for c in rules), rules
    assert all("`c = _unpack_builder(c)` from module `mpicoll.utils`, which is not found beside this file" in c["message"]
               for c in rules), [c["message"] for c in rules]
    assert tree(repo) == before


def test_sibling_scripts_importing_the_builder_from_jax_each_drop_their_unused_import(tmp_path) -> None:
    """Two scripts of one folder each import ``custom_call`` from jax without using it: the
    other's mention of the name is its own import from jax, no read of this module's."""
    folder = tmp_path / "scripts"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    script = ("import jax\nfrom jax.interpreters.mlir import custom_call\n\n\n"
              "def f(x):\n    return jax.numpy.sin(x)\n")
    (folder / "solver_v3.py").write_text(script)
    (folder / "solver_v7.py").write_text(script)
    done = ccmigrate("apply", "-q", str(tmp_path))
    assert done.returncode == 0, done.stderr
    for name in ("solver_v3.py", "solver_v7.py"):
        assert (folder / name).read_text() == "import jax\n\n\ndef f(x):\n    return jax.numpy.sin(x)\n"


def test_a_module_reading_the_name_as_an_attribute_keeps_the_reexport(tmp_path) -> None:
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "compat.py").write_text("from jax.interpreters.mlir import custom_call\n")
    (folder / "user.py").write_text("from . import compat\n\nbuild = compat.custom_call\n")
    report = tmp_path / "report.json"
    done = ccmigrate("apply", "-q", "--report", str(report), str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert (folder / "compat.py").read_text() == "from jax.interpreters.mlir import custom_call\n"
    changes = {os.path.basename(f["path"]): f["changes"] for f in json.loads(report.read_text())["files"]}
    assert "`user.py` also refers to `custom_call`" in changes["compat.py"][0]["message"]


def test_a_primitive_named_like_the_builder_reads_no_reexport(tmp_path) -> None:
    """flash-attention bridge: one module imports ``custom_call`` without using it, a
    sibling defines its own ``custom_call`` over ``Primitive("custom_call")``. That string
    names a primitive, not the import: the unused import goes. A string in ``__all__``
    or a ``getattr`` does read it, and keeps it."""
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "flash.py").write_text("import jax\nfrom jaxlib.hlo_helpers import custom_call\n\n\n"
                                     "def f(x):\n    return jax.numpy.sin(x)\n")
    (folder / "flash_hlo.py").write_text("from jax.extend.core import Primitive\n\n"
                                         "_custom_call_p = Primitive(\"custom_call\")\n\n\n"
                                         "def custom_call(*args, **params):\n"
                                         "    return _custom_call_p.bind(*args, **params)\n")
    done = ccmigrate("apply", "-q", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert (folder / "flash.py").read_text() == "import jax\n\n\ndef f(x):\n    return jax.numpy.sin(x)\n"
    for reader in ("__all__ = [\"custom_call\"]\n", "from . import flash\n\nbuild = getattr(flash, \"custom_call\")\n"):
        (folder / "flash.py").write_text("import jax\nfrom jaxlib.hlo_helpers import custom_call\n")
        (folder / "flash_hlo.py").write_text(reader)
        done = ccmigrate("apply", "-q", str(tmp_path))
        assert done.returncode == 0, done.stderr
        assert "custom_call" in (folder / "flash.py").read_text(), reader


def test_a_projects_own_jax_subpackage_is_not_read_as_jax(tmp_path) -> None:
    """TransformerEngine's ``transformer_engine/jax`` in a checkout whose top folder has no
    ``__init__.py`` (a namespace package, or a snapshot): its ``from ..util import
    is_hip_extension`` is the project's module, not jax's ``jax.util``, so nothing reports
    it as a removed jax name, and --annotate's self-check holds (a second pass used to add a
    second TODO)."""
    from codemods.engine import package_of

    pkg = tmp_path / "transformer_engine" / "jax"
    (pkg / "cpp_extensions").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "util.py").write_text("def is_hip_extension():\n    return False\n")
    (pkg / "cpp_extensions" / "__init__.py").write_text("")
    misc = pkg / "cpp_extensions" / "misc.py"
    misc.write_text("import jax\nfrom ..util import is_hip_extension\n\n\n"
                    "def platform():\n    return 'rocm' if is_hip_extension() else jax.default_backend()\n")
    assert package_of(str(misc)) == "transformer_engine.jax.cpp_extensions"
    assert package_of(str(pkg / "util.py")) == "transformer_engine.jax"
    done = ccmigrate("diff", "--annotate", "--output-format", "json", str(tmp_path / "transformer_engine"))
    assert done.returncode == 0, done.stderr
    assert [c for f in json.loads(done.stdout)["files"] for c in f["changes"]] == []
