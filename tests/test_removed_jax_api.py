"""removed-jax-api: the table of moved names and rewritten helpers, checked against the
installed jax; missing names are reported manual on their line; others' names are not."""

import ctypes
import importlib
import importlib.util
import os

import jax
import numpy as np
import pytest

from codemods.rule import Safety
from codemods.rules import _installed_jax as installed_jax
from codemods.rules import removed_jax_api as rule
from tests.helpers import TESTDATA, rewrite_source

CASES = os.path.join(TESTDATA, "rules", "removed-jax-api")


def _run(case: str, *args: str):
    path = os.path.join(CASES, case)
    with open(path, "rb") as f:
        source = f.read()
    return rewrite_source(source, path, [*args, "--select", "removed-jax-api"])


def _load(result, tmp_path, name: str):
    """The rewritten module, written to ``tmp_path`` and imported."""
    path = tmp_path / f"{name}.py"
    path.write_bytes(result.updated)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _resolve(qualified: str):
    parts = qualified.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(qualified)


#: What each legacy name served in its last release (read in that release's source): the
#: replacement must be this very object on the installed jax.
ORIGINS = {
    "jax.abstract_arrays.ShapedArray": "jax._src.core.ShapedArray",
    # jax/__init__.py: ``from jax._src.core import ShapedArray as _deprecated_ShapedArray``.
    "jax.ShapedArray": "jax._src.core.ShapedArray",
    # ``from jax.api import *`` exported the module api.py imported.
    "jax.batching": "jax.interpreters.batching",
    # jax/ad_util.py defined them; jax.interpreters.ad imported them from it.
    **{f"jax.ad_util.{n}": f"jax._src.ad_util.{n}" for n in ("Zero", "add_jaxvals", "add_jaxvals_p", "zeros_like_aval")},
    "jax.core.Token": "jax._src.core.Token",
    "jax.interpreters.xla.Token": "jax._src.core.Token",
    # jax/interpreters/xla.py: ``Device = xc.Device`` (xc is jax._src.lib.xla_client).
    "jax.interpreters.xla.Device": "jax._src.lib.xla_client.Device",
    **{f"jax.{n}": f"jax._src.tree_util.{n}" for n in (
        "tree_map", "tree_flatten", "tree_unflatten", "tree_leaves", "tree_structure", "tree_transpose")},
    **{f"jax.core.{n}": f"jax._src.core.{n}" for n in (
        "Jaxpr", "ClosedJaxpr", "JaxprEqn", "Literal", "Var", "jaxpr_as_fun", "call_p", "closed_call_p",
        "ConcretizationTypeError", "mapped_aval", "unmapped_aval", "AbstractToken", "TraceTag",
        "call_impl", "subjaxprs", "set_current_trace", "take_current_trace")},
    # Deprecated in jax 0.10.0, removed in 0.11.0: jax/core.py forwarded jax._src.core's.
    **{f"jax.core.{n}": f"jax._src.core.{n}" for n in (
        "CallPrimitive", "DebugInfo", "DropVar", "Effect", "Effects", "InconclusiveDimensionOperation",
        "JaxprTypeError", "check_jaxpr", "concrete_or_error", "find_top_trace", "gensym", "get_opaque_trace_state",
        "jaxprs_in_params", "new_jaxpr_eqn", "no_effects", "primal_dtype_to_tangent_dtype", "valid_jaxtype",
        "abstract_token")},
    **{f"jax.core.{n}_DO_NOT_USE": f"jax._src.core.{n}" for n in (
        "nonempty_axis_env", "unsafe_am_i_under_a_jit", "unsafe_am_i_under_a_vmap", "unsafe_get_axis_names")},
    # jax/__init__.py up to 0.2.20: ``from .api import partial`` (api.py: ``from functools import partial``).
    "jax.partial": "functools.partial",
    # jax/__init__.py (0.4.13: deprecated): ``from jax.interpreters import pxla``.
    "jax.pxla": "jax.interpreters.pxla",
    # jax/_src/prng.py up to 0.10.1, split up in 0.10.2: the module and its threefry and rbg parts.
    "jax._src.prng": "jax._src.random.prng",
    **{f"jax._src.prng.{n}": f"jax._src.random.threefry2x32.{n}" for n in (
        "threefry2x32_p", "threefry_2x32", "threefry_prng_impl", "threefry_seed", "threefry_split", "threefry_fold_in",
        "threefry_random_bits")},
    **{f"jax._src.prng.{n}": f"jax._src.random.rbg.{n}" for n in ("rbg_prng_impl", "unsafe_rbg_prng_impl")},
    "jax.core.get_aval": "jax._src.core.typeof",
    "jax._src.core.get_aval": "jax._src.core.typeof",
    # jax/abstract_arrays.py re-exported core's singleton.
    "jax.abstract_arrays.abstract_token": "jax._src.core.abstract_token",
    "jax.core.get_type": "jax._src.core.typeof",
    **{f"jax.linear_util.{n}": f"jax._src.linear_util.{n}" for n in (
        "StoreException", "WrappedFun", "cache", "merge_linear_aux", "transformation",
        "transformation_with_aux", "wrap_init")},
    **{f"{m}.{n}": f"jax._src.xla_bridge.{n}" for m in ("jax.interpreters.xla.xb", "jax._src.lib.xla_bridge") for n in (
        "get_backend", "backends", "default_backend", "devices", "local_devices", "device_count",
        "local_device_count", "process_index", "process_count")},
    "jax.ad_checkpoint.checkpoint": "jax._src.ad_checkpoint.checkpoint",
    "jax.ad_checkpoint.remat": "jax._src.ad_checkpoint.checkpoint",
    **{f"jax.core.{n}": f"jax._src.errors.{n}" for n in (
        "TracerArrayConversionError", "TracerIntegerConversionError", "UnexpectedTracerError")},
    "jax.interpreters.xla.ShapedArray": "jax._src.core.ShapedArray",
    # Never in jax.extend.core: the only ShapedArray class any jax module exported.
    "jax.extend.core.ShapedArray": "jax._src.core.ShapedArray",
    # ``jax.ad`` was the module jax.interpreters.ad (jax/__init__.py imported it as such).
    **{f"jax.ad.{n}": f"jax.interpreters.ad.{n}" for n in rule.AD_MEMBERS},
    # jax 0.2.21 changelog: the jax.api.* functions "were aliases for functions in jax.*".
    **{f"jax.api.{n}": f"jax.{n}" for n in rule.API_MEMBERS},
    # jax/api.py (0.2.17): ``from ..tree_util import (tree_map, tree_flatten, ...)``.
    **{f"jax.api.{n}": f"jax._src.tree_util.{n}" for n in (
        "tree_map", "tree_flatten", "tree_unflatten", "tree_structure", "tree_leaves", "tree_transpose")},
    # jax/api_util.py: ``from .tree_util import (build_tree, tree_flatten, tree_unflatten, ...)``.
    **{f"jax.api_util.{n}": f"jax._src.tree_util.{n}" for n in ("tree_flatten", "tree_unflatten", "treedef_is_leaf")},
    "jax.interpreters.partial_eval.Jaxpr": "jax._src.core.Jaxpr",
    "jax.interpreters.batching.Array": "jax._src.basearray.Array",
    # jax/_src/api.py (0.4.x): ``from jax._src.api_util import (argnums_partial, ...)``.
    "jax._src.api.argnums_partial": "jax._src.api_util.argnums_partial",
    "jax._src.api_util.shaped_abstractify": "jax._src.core.shaped_abstractify",
    # jax 0.4.16 moved jax.numpy's implementation there and kept trapz as its deprecated alias.
    "jax.numpy.trapz": "jax._src.scipy.integrate.trapezoid",
    "jax.nn.normalize": "jax._src.nn.functions.standardize",
    # jax.numpy bound these names to the functions themselves (``round_ = round``).
    "jax.numpy.round_": "jax._src.numpy.lax_numpy.round",
    "jax.numpy.row_stack": "jax._src.numpy.lax_numpy.vstack",
    "jax.treedef_is_leaf": "jax._src.tree_util.treedef_is_leaf",
    "jax.experimental.pjit.with_sharding_constraint": "jax._src.pjit.with_sharding_constraint",
    # jax/random.py and jax/experimental/maps.py, pjit.py and __init__.py re-exported these.
    "jax.random.threefry2x32_p": "jax._src.random.threefry2x32.threefry2x32_p",  # jax._src.prng before 0.10
    "jax.experimental.maps.Mesh": "jax._src.mesh.Mesh",
    "jax.experimental.maps.thread_resources": "jax._src.mesh.thread_resources",
    "jax.experimental.PartitionSpec": "jax._src.partition_spec.PartitionSpec",
    "jax.experimental.pjit.PartitionSpec": "jax._src.partition_spec.PartitionSpec",
    **{f"jax._src.sharding.{n}": f"jax._src.sharding_impls.{n}" for n in ("NamedSharding", "SingleDeviceSharding")},
    # jax 0.4.6's jax/_src/numpy/util.py defined ``_promote_dtypes`` & co.; lax_numpy imported them.
    **{f"jax._src.numpy.util._{n}": f"jax._src.numpy.util.{n}" for n in rule.NUMPY_UTIL_RENAMED},
    **{f"jax._src.numpy.lax_numpy._{n}": f"jax._src.numpy.util.{n}" for n in rule.LAX_NUMPY_REEXPORTED},
    # jax.numpy: ``product = prod`` and so on; the example libraries and linalg modules moved whole.
    **{f"jax.numpy.{old}": f"jax.numpy.{new}" for old, new in (
        ("product", "prod"), ("cumproduct", "cumprod"), ("alltrue", "all"), ("sometrue", "any"))},
    "jax.experimental.optimizers": "jax.example_libraries.optimizers",
    "jax.experimental.stax": "jax.example_libraries.stax",
    "jax.lax_linalg": "jax.lax.linalg",
    "jax.random.KeyArray": "jax._src.basearray.Array",
    "jax.random.PRNGKeyArray": "jax._src.basearray.Array",
    **{n: "jax._src.basearray.Array" for n in (
        "jax.numpy.DeviceArray", "jax.interpreters.xla.DeviceArray", "jax.interpreters.xla._DeviceArray")},
    # Pallas: jax 0.6.2's tpu.py bound ``TPUMemorySpace``/``TPUCompilerParams`` to the classes
    # jax._src.pallas.mosaic.core still defines; 0.7.2 to 0.9 bound ``pltpu.ANY`` to
    # ``pl.ANY``'s member; tpu.py imported ``delay`` from the Mosaic primitives (since moved
    # to the shared ones), ``run_scoped`` and ``CostEstimate`` from the shared modules; the
    # Triton primitives and ``CompilerParams`` are the ones jax._src.pallas.triton defines.
    "jax.experimental.pallas.tpu.TPUMemorySpace": "jax._src.pallas.mosaic.core.MemorySpace",
    "jax.experimental.pallas.tpu.TPUCompilerParams": "jax._src.pallas.mosaic.core.CompilerParams",
    "jax.experimental.pallas.tpu.TPUMemorySpace.ANY": "jax._src.pallas.core.MemorySpace.ANY",
    "jax.experimental.pallas.tpu.ANY": "jax._src.pallas.core.MemorySpace.ANY",
    "jax.experimental.pallas.tpu.delay": "jax._src.pallas.primitives.delay",
    "jax.experimental.pallas.tpu.run_scoped": "jax._src.pallas.primitives.run_scoped",
    "jax.experimental.pallas.tpu.CostEstimate": "jax._src.pallas.core.CostEstimate",
    **{f"jax.experimental.pallas.{n}": f"jax._src.pallas.triton.primitives.{n}" for n in (
        *rule.PALLAS_ATOMICS, "max_contiguous")},
    "jax.experimental.pallas.gpu": "jax.experimental.pallas.triton",
    "jax.experimental.pallas.triton.TritonCompilerParams": "jax._src.pallas.triton.core.CompilerParams",
    # Deprecated in jax 0.10 (pltpu's forwarding table, pl's for dot), removed in 0.11/0.12.
    "jax.experimental.pallas.tpu.semaphore": "jax._src.pallas.core.semaphore",
    **{f"jax.experimental.pallas.tpu.{n}": f"jax._src.pallas.primitives.{n}" for n in (
        "DeviceIdType", "semaphore_read", "semaphore_signal", "semaphore_wait")},
    "jax.experimental.pallas.tpu.HOST": "jax._src.pallas.core.MemorySpace.HOST",
    "jax.experimental.pallas.dot": "jax._src.pallas.primitives.dot",
}
#: Not the same object by construction; why each is equivalent is in the rule's docstring.
FORWARDERS = {"jax._src.dtypes.bit_width", "jax._src.state.primitives.pp_ref", "jax._src.state.ShapedArrayRef", "jax.tree_multimap", "jax.tree_util.tree_multimap", "jax.api.tree_multimap", "jax.config.config", "jax.xla", "jax.linear_util",
              "jax.interpreters.mlir.func_dialect", "jax.ops.index", "jax.interpreters.pxla.ShardedDeviceArray"}


def _deprecated_here(legacy: str) -> bool:
    """``legacy`` is in its module's table of deprecated names on the installed jax, still
    served (jax warns once per process, so the table is read rather than the warning)."""
    module, _, name = legacy.rpartition(".")
    entry = getattr(importlib.import_module(module), "_deprecations", {}).get(name)
    return entry is not None and entry[1] is not None


def test_every_move_is_gone_or_deprecated_here_and_names_the_same_object() -> None:
    installed = rule.installed_version()
    for legacy, entry in rule.MOVED.items():
        # ``jax.config`` is the config object now, no longer a module to import from.
        if rule.first_missing(legacy) or legacy == "jax.config.config":
            continue
        # Deprecated here, removed by a later release (jax.core.new_jaxpr_eqn: 0.11.0).
        removed = tuple(int(p) for p in entry.removed.split(".")) if entry.removed[:1].isdigit() else ()
        assert removed > installed and _deprecated_here(legacy), f"{legacy} still exists: nothing to move"
    for legacy, entry in rule.MOVED.items():
        if entry.since > installed:
            # A home only later releases have (jax.ffi.abstract_token, 0.11.0): the legacy
            # name is still the origin's object here; the new one was read off 0.11.0 and 0.12.1.
            assert _resolve(legacy) is _resolve(ORIGINS[legacy]), legacy
            continue
        new = _resolve(entry.new)
        if legacy in FORWARDERS or entry.unsafe:
            continue
        assert new is _resolve(ORIGINS[legacy]), legacy
    for legacy, origin in ORIGINS.items():
        if legacy.startswith("jax.linear_util."):
            moved = _resolve(rule.MOVED["jax.linear_util"].new + legacy[len("jax.linear_util"):])
            if legacy.endswith(".wrap_init"):
                # A wrapper supplying the debug_info the private one now requires: the
                # legacy call wrap_init(f, params) still works.
                def f(x):
                    return x

                wrapped = moved(f, {})
                assert isinstance(wrapped, _resolve("jax._src.linear_util.WrappedFun")) and wrapped.f is f
                continue
            assert moved is _resolve(origin), legacy


def test_renamed_ref_colouring_prints_a_document_as_the_old_one_did() -> None:
    """jax 0.4.x: ``pp_ref = partial(pp.color, intensity=pp.Intensity.NORMAL,
    foreground=pp.Color.GREEN)`` (read in its source); the rename formats a document alike."""
    from functools import partial

    from jax._src import pretty_printer as pp

    old = partial(pp.color, intensity=pp.Intensity.NORMAL, foreground=pp.Color.GREEN)
    new = _resolve(rule.MOVED["jax._src.state.primitives.pp_ref"].new)
    doc = pp.concat([pp.text("x"), pp.text("["), pp.text("0"), pp.text("]")])
    assert new(doc).format(use_color=False) == old(doc).format(use_color=False) == "x[0]"
    coloured = new(doc).format(use_color=True)
    assert coloured == old(doc).format(use_color=True) and coloured != "x[0]" and "x[0]" in coloured


def test_every_rewritten_helper_is_gone_here() -> None:
    for legacy in rule.CALLS:
        assert rule.first_missing(legacy), legacy


def _old_batching_moveaxis(x, src, dst):
    """jax.interpreters.batching.moveaxis as jax 0.8 defined it (read in its source)."""
    if dst == src:
        return x
    src, dst = src % x.ndim, dst % x.ndim
    perm = [i for i in range(np.ndim(x)) if i != src]
    perm.insert(dst, src)
    return x.transpose(perm)


def test_moveaxis_matches_the_removed_helper_on_arrays_and_tracers() -> None:
    import jax
    import jax.numpy as jnp

    x = jnp.arange(24.0).reshape(2, 3, 4)
    pairs = [(s, d) for s in range(-3, 3) for d in range(-3, 3)]
    # Concrete arrays, including src == dst and negative axes.
    for src, dst in [(1, 1), (-1, 2), (0, -1), (-3, 1)]:
        assert jnp.array_equal(jnp.moveaxis(x, src, dst), _old_batching_moveaxis(x, src, dst)), (src, dst)
    # Inside a trace (a batching rule's operands are tracers): every pair, one compilation each side.
    traced = jax.jit(lambda a: [jnp.moveaxis(a, s, d) for s, d in pairs])(x)
    legacy = jax.jit(lambda a: [_old_batching_moveaxis(a, s, d) for s, d in pairs])(x)
    for (src, dst), got, want in zip(pairs, traced, legacy):
        assert got.shape == want.shape and jnp.array_equal(got, want), (src, dst)


def _capsule_data(capsule) -> int:
    """The data pointer of a legacy "dltensor" capsule (DLTensor.data is its first field)."""
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    assert get_name(capsule) == b"dltensor"
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return ctypes.cast(get_pointer(capsule, b"dltensor"), ctypes.POINTER(ctypes.c_void_p))[0]


def test_dunder_dlpack_is_the_capsule_to_dlpack_returned() -> None:
    import jax.numpy as jnp
    from jax._src import dlpack  # what jax.dlpack.to_dlpack was in its last release

    import jax

    # A CPU array: DLPack exports host and GPU buffers (a TPU buffer cannot be one).
    x = jax.device_put(jnp.arange(6.0).reshape(2, 3), jax.devices("cpu")[0])
    assert _capsule_data(x.__dlpack__()) == _capsule_data(dlpack.to_dlpack(x)) == x.unsafe_buffer_pointer()


def test_zero_with_the_primal_aval_still_works_in_a_jvp_rule() -> None:
    """The rewrite keeps what from_value built (the primal aval, int32 here, not float0);
    jax 0.10.2 accepts that symbolic zero from a JVP rule, under jit too."""
    import jax
    from jax.extend.core import Primitive
    from jax.interpreters import ad, mlir

    p = Primitive("removed_jax_api_zero")
    p.multiple_results = True
    p.def_impl(lambda x, n: [x * 2, n])
    p.def_abstract_eval(lambda x, n: [x, n])
    mlir.register_lowering(p, mlir.lower_fun(lambda x, n: [x * 2, n], multiple_results=True))

    def jvp(primals, tangents):
        out = p.bind(*primals)
        return out, [ad.instantiate_zeros(tangents[0]) * 2, ad.Zero(jax.typeof(out[1]))]

    ad.primitive_jvps[p] = jvp
    zero = np.zeros((), jax.dtypes.float0)
    primal, tangent = jax.jit(lambda a, b: jax.jvp(lambda u, v: p.bind(u, v), (a, b), (1.0, zero)))(1.0, np.int32(3))
    assert float(tangent[0]) == 2.0 and tangent[1].dtype == jax.dtypes.float0
    assert float(jax.grad(lambda a: p.bind(a, np.int32(3))[0])(1.0)) == 2.0


def test_zero_with_the_tangent_aval_is_what_from_primal_value_built() -> None:
    """from_primal_value(v) was Zero(get_aval(v).to_tangent_aval()): float0 for an int."""
    import jax
    from jax.interpreters import ad

    for value, dtype in ((np.int32(3), jax.dtypes.float0), (np.float32(1.0), np.float32)):
        zero = ad.Zero(jax.typeof(value).to_tangent_aval())
        assert zero.aval.dtype == dtype and zero.aval.shape == ()


def test_missing_names_are_manual_with_reason_on_their_line() -> None:
    result = _run("missing_names.py")
    assert result.updated is None
    found = {(c.line, c.message.split(" ")[0]) for c in result.changes}
    assert found == {
        (6, "jax.random.KeyArray"),
        (9, "jax.core.Shape"),  # a module variable's annotation: evaluated, kept
        (13, "jax.interpreters.batching.moveaxis"),
        (14, "jax.interpreters.batching.moveaxis"),
        (15, "jax.core.raise_to_shaped"),
        (16, "jax.dlpack.to_dlpack"),
        (16, "jax.core.ConcreteArray"),
        (25, "jaxlib.xla_extension.ArrayImpl"),
        (29, "jax._src.lib.xla_bridge"),
        (33, "jax.xla_computation"),
        (38, "jax.xla_computation"),
    }
    assert all(c.safety is Safety.MANUAL for c in result.changes)
    assert all("does not exist in the installed jax" in c.message and "(" in c.message for c in result.changes)


def test_names_other_rules_own_and_guarded_sites_are_not_reported() -> None:
    for case in ("owned_by_other_rules.py", "guarded.py", "owned_dialects.py", "module_dunders.py"):
        # (The engine itself reports an import of a deleted module that no selected rule
        # migrates the uses of: not this rule's finding.)
        assert [c for c in _run(case).changes if not c.message.startswith("import of")] == [], case


def test_catch_all_only_for_the_installed_release() -> None:
    assert _run("missing_names.py", "--target-jax", "0.4.20").changes == []


@pytest.mark.parametrize("target, kept", [
    ("0.5", ["ad.Zero.from_value(token)"]),  # jax.typeof arrived in 0.6.0
    ("0.4.30", ["ad.Zero.from_value(token)", "raise_to_shaped(", "core.full_lower(x)"]),  # no-ops from 0.4.36
])
def test_a_helper_is_rewritten_only_for_targets_that_have_its_replacement(target, kept) -> None:
    result = _run("removed_helpers.py", "--target-jax", target)
    text = result.updated.decode()
    for legacy in kept:
        assert legacy in text, legacy
    assert "jnp.moveaxis(x, bx, 0)" in text and "(x + 1).__dlpack__()" in text


def test_moved_imports_leave_no_manual_finding_behind() -> None:
    # The module path inside ``from jax.abstract_arrays import ...`` is not a use of it.
    for case in ("moved_names.py", "moved_api_names.py", "removed_helpers.py", "key_annotations.py"):
        result = _run(case)
        assert [c for c in result.changes if c.safety is Safety.MANUAL] == [], case


def test_zeros_like_array_was_full_like_zero() -> None:
    import jax.numpy as jnp
    from jax import lax

    for x in (jnp.arange(3.0), jnp.ones((2, 2), jnp.int8), jnp.array(True)):
        y = lax.full_like(x, 0)
        assert y.dtype == x.dtype and y.shape == x.shape and not y.any()


def test_zeros_like_jaxval_and_make_shaped_array_as_they_were_defined() -> None:
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax._src import ad_util

    # The private module keeps both helpers: the rewrites must give what they give.
    for x in (jnp.arange(3.0), jnp.ones((2, 2), jnp.int8), np.float64(2.5), 3):
        expected = ad_util.zeros_like_jaxval(x)
        got = lax.full_like(x, 0)
        assert got.dtype == expected.dtype and got.shape == expected.shape and not got.any()
        shaped = jax.core.ShapedArray(np.shape(x), jax.dtypes.canonicalize_dtype(jax.dtypes.result_type(x)))
        assert (shaped.shape, shaped.dtype) == (np.shape(x), expected.dtype)


def test_unsafe_fixes_are_manual_findings_without_the_flag() -> None:
    result = _run("unsafe_offered.py")
    assert result.updated is None
    assert [(c.line, c.safety) for c in result.changes] == [(7, Safety.MANUAL)] * 2
    assert all("(applied with --unsafe-fixes)" in c.message for c in result.changes)
    fixed = _run("unsafe_offered.py", "--unsafe-fixes")
    assert [c.safety for c in fixed.changes] == [Safety.UNSAFE] * 2 and all(c.applied for c in fixed.changes)


def test_unused_imports_dropped_by_two_rules_do_not_collide() -> None:
    source = (b"import jax\nfrom jax.interpreters.mlir import custom_call\nfrom jaxlib.xla_client import ops\n"
              b"import jax.experimental.host_callback as hcb\n\nx = jax.numpy.ones(3)\n")
    result = rewrite_source(source, "unused.py", [])
    assert result.error is None
    assert result.updated == b"import jax\n\nx = jax.numpy.ones(3)\n"


def test_enable_x64_context_gives_what_the_experimental_one_did() -> None:
    import jax
    import jax.numpy as jnp

    with jax.enable_x64(True):
        assert jnp.asarray(np.arange(3.0)).dtype == np.float64
    with jax.enable_x64(False):
        assert jnp.asarray(np.arange(3.0)).dtype == np.float32


def test_maps_mesh_context_becomes_the_mesh_it_entered() -> None:
    """The expected file runs: pjit under ``with Mesh(...)`` finds the mesh maps.mesh set,
    and thread_resources reads its shape."""
    import runpy
    import warnings

    namespace = runpy.run_path(os.path.join(TESTDATA, "rules", "removed-jax-api", "maps_mesh_context.expected.py"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # ``with mesh:``, deprecated from jax 0.8
        out, dp = namespace["train"]()
    assert dp == len(jax.devices())
    np.testing.assert_array_equal(np.asarray(out), np.full((dp * 2, 4), 2.0, np.float32))


def test_xla_op_among_a_typevars_constraints_becomes_the_mlir_value_type() -> None:
    """kfac-jax's ``TypeVar("ArrayOrXla", Array, xla.XlaOp)`` for what its tag primitives'
    rules pass through: once they are MLIR lowering rules, ir.Value. Elsewhere XlaOp stays
    manual, and the import stays for it."""
    source = (b"from typing import TypeVar\nimport jax\nfrom jax.interpreters import xla\n\n"
              b"T = TypeVar('T', jax.Array, xla.XlaOp)\nU = TypeVar('U', bound=xla.XlaOp)\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert result.updated == (b"from typing import TypeVar\nimport jax\nfrom jax.interpreters.mlir import ir\n\n"
                              b"T = TypeVar('T', jax.Array, ir.Value)\nU = TypeVar('U', bound=ir.Value)\n")
    assert [c.safety for c in result.changes] == [Safety.SAFE, Safety.SAFE]
    from jax.interpreters.mlir import ir
    assert isinstance(ir.Value, type)
    kept = source + b"print(xla.XlaOp)\n"
    result = rewrite_source(kept, "m.py", ["--select", "removed-jax-api"])
    assert b"from jax.interpreters import xla\n" in result.updated and b"print(xla.XlaOp)" in result.updated
    assert [c.safety for c in result.changes if c.line == 7] == [Safety.MANUAL]
    # The 2022 spelling through the moved ``jax.xla`` module (kfac-jax's own file).
    through_jax = b"from typing import TypeVar\nimport jax\n\nT = TypeVar('T', jax.Array, jax.xla.XlaOp)\n"
    result = rewrite_source(through_jax, "m.py", ["--select", "removed-jax-api"])
    assert result.updated == (b"from typing import TypeVar\nimport jax\nfrom jax.interpreters.mlir import ir\n\n"
                              b"T = TypeVar('T', jax.Array, ir.Value)\n")
    assert [c.safety for c in result.changes] == [Safety.SAFE]


def test_optional_jax_with_a_feature_test_still_resolves_its_names() -> None:
    """``try: import jax / except ImportError: jax = None`` (jax optional) beside a
    ``hasattr(jax, "pxla")`` call: the call reads like a parameter list to the text test,
    and scope analysis counts the fallback as a second meaning of ``jax``; the fallback
    runs only where the import failed, so ``jax.pxla`` is still the module's (found by
    benchmarks/fuzz.py: nothing in such a module was migrated or reported). A real second
    binding still leaves the name unresolved."""
    source = (b"try:\n    import jax\nexcept ImportError:\n    jax = None\n\n\n"
              b"def sharded(x):\n    return hasattr(jax, 'pxla') and isinstance(x, jax.pxla.ShardedDeviceArray)\n\n\n"
              b"def mesh():\n    return jax.pxla.thread_resources.env.physical_mesh\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert b"    return thread_resources.env.physical_mesh\n" in result.updated
    assert [(c.line, c.safety) for c in result.changes] == [(12, Safety.SAFE)]
    rebound = source + b"\n\njax = object()\n"
    assert rewrite_source(rebound, "m.py", ["--select", "removed-jax-api"]).changes == []


def test_a_local_of_another_function_does_not_hide_an_optional_import() -> None:
    """``mlir`` imported under ``try`` with an ``mlir = None`` fallback, and a function
    elsewhere that binds a local ``mlir``: that local cannot change what ``mlir`` names
    in the lowering rule, so the rule's custom call is still migrated (found by
    benchmarks/fuzz.py: the site was neither rewritten nor reported). The same local
    declared ``global`` is a real second meaning and leaves the name unresolved."""
    head = (b"import jax\ntry:\n    from jax.interpreters import mlir\nexcept ImportError:\n    mlir = None\n\n\n"
            b"def _lowering(ctx, x, out):\n"
            b"    return mlir.custom_call('k', result_types=[out], operands=[x], backend_config=b'abc').results\n\n\n")
    local = head + b"def other():\n    mlir = 3\n    return mlir\n"
    result = rewrite_source(local, "m.py", ["--select", "custom-call-api"])
    assert b"jax.ffi.ffi_lowering('k', api_version=2" in result.updated
    assert [(c.line, c.safety) for c in result.changes] == [(9, Safety.SAFE)]
    shared = head + b"def other():\n    global mlir\n    mlir = 3\n"
    assert rewrite_source(shared, "m.py", ["--select", "custom-call-api"]).changes == []


def test_a_fallback_after_other_statements_of_the_handler_still_resolves_its_name() -> None:
    """``except ImportError:`` with ``lax = None`` after another statement of the handler
    is still the import's fallback, not a second meaning of ``lax`` (found by
    benchmarks/fuzz.py: the removed ``lax.zeros_like_array`` went unreported)."""
    source = (b"try:\n    from jax import lax\nexcept ImportError:\n    print('no jax')\n    lax = None\n\n\n"
              b"def zeros(x):\n    return lax.zeros_like_array(x)\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert b"zeros_like_array" not in result.updated
    assert [(c.line, c.safety) for c in result.changes] == [(9, Safety.SAFE)]


def test_a_name_left_behind_an_early_exit_is_reported() -> None:
    """Code after ``if jax >= 0.6: return ...`` serves older releases and is left as is,
    but nothing encloses it, so it is reported (a count of missing names reading the
    statements one by one sees it); after ``if jaxlib_version < (0, 5, 3): raise`` (jax-
    triton, the jaxlib version imported from ``jax._src.lib``) it is code for the target."""
    source = (b"import jax\nfrom jax._src.lib import version as jaxlib_version\n\n\n"
              b"def f(x):\n    if jax.__version_info__ >= (0, 6, 0):\n        return x\n"
              b"    return jax.core.pp_eqn_compact(x)\n\n\n"
              b"def g(x, scratch):\n    if scratch > 0 and jaxlib_version < (0, 5, 3):\n        raise RuntimeError('old')\n"
              b"    return jax.core.pp_eqn_compact(x)\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    found = {c.line: c.message for c in result.changes}
    assert sorted(found) == [8, 14] and all(c.safety == Safety.MANUAL for c in result.changes)
    assert "left as is, as code for other jax releases: the `if jax >= 0.6.0: return ...`" in found[8]
    assert "left as is" not in found[14]


def test_a_name_behind_a_test_whose_outcome_is_not_read_is_reported() -> None:
    """``if hasattr(jax, "ffi"):`` is true on the installed jax, but the index takes a
    compiled module's names as present, so the rule does not read it: the branch may run
    there and its missing names were left unreported. A test read with confidence, or a
    try that catches the failure, still keeps its other branch silent."""
    source = (b"import jax\n\n\n"
              b"def f(x):\n    if hasattr(jax, 'ffi'):\n"
              b"        return jax.tree_map(abs, x), jax.core.pp_eqn_compact(x), jax.interpreters.batching.not_mapped\n"
              b"    return x\n\n\n"
              b"def g(x):\n    if jax.__version_info__ < (0, 4, 20):\n        return jax.core.pp_eqn_compact(x)\n"
              b"    try:\n        return jax.tree_map(abs, x) if hasattr(jax, 'ffi') else x\n"
              b"    except AttributeError:\n        return x\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert result.updated is None  # nothing rewritten
    found = sorted((c.line, c.message) for c in result.changes)
    assert [line for line, _ in found] == [6, 6, 6] and all(c.safety == Safety.MANUAL for c in result.changes)
    assert all("left as is inside `if hasattr(jax, 'ffi')`, whose outcome there is not read" in m for _, m in found)
    assert any("(the same object is jax.tree_util.tree_map)" in m for _, m in found)
    assert any("`not_mapped = None`: `None`)" in m for _, m in found)


def test_a_local_elsewhere_does_not_hide_the_public_twin_imported_last() -> None:
    """``from jax._src.interpreters import mlir`` then ``from jax.interpreters import mlir``
    (jaxDecomp): functions see the public module. A function elsewhere binding a local
    ``mlir`` sent resolution to scope analysis, which names both imports, and the rule's
    ``mlir.aval_to_ir_type(aval)`` went neither rewritten nor reported (found by
    benchmarks/fuzz.py)."""
    source = (b"from jax._src.interpreters import mlir\nfrom jax.interpreters import mlir\n\n\n"
              b"def lowering(ctx, a):\n    (aval_out,) = ctx.avals_out\n"
              b"    return [mlir.hlo.ReshapeOp(mlir.aval_to_ir_type(aval_out), a).result]\n\n\n"
              b"def other(factory):\n    mlir = factory()\n    return mlir.aval_to_ir_type(None)\n")
    result = rewrite_source(source, "m.py", [])
    assert b"mlir.aval_to_ir_type(ctx.module_context, aval_out)" in result.updated
    assert b"    return mlir.aval_to_ir_type(None)\n" in result.updated
    assert sorted((c.rule, c.line) for c in result.changes) == [("aval-to-ir-type", 7), ("stablehlo-custom-call-op", 7)]


def test_maps_mesh_bound_with_as_stays_manual() -> None:
    source = (b"from jax.experimental import maps\n\n\ndef f(devices):\n"
              b"    with maps.mesh(devices, ('x',)) as nothing:\n        return nothing\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert result.updated is None
    found = [c for c in result.changes if c.line == 5]
    assert [c.safety for c in found] == [Safety.MANUAL] and "(no `as`)" in found[0].message


def test_a_helper_imported_under_another_name_is_rewritten_with_its_import() -> None:
    source = b"from jax.interpreters.batching import moveaxis as mv\n\n\ndef f(x):\n    return mv(x, 0, 1)\n"
    result = rewrite_source(source, "renamed.py", ["--select", "removed-jax-api"])
    assert result.updated == b"from jax.numpy import moveaxis\n\n\ndef f(x):\n    return moveaxis(x, 0, 1)\n"


def test_jax_xla_in_a_module_with_translation_rules_is_left_to_xla_translation_rule() -> None:
    path = os.path.join(TESTDATA, "rules", "xla-translation-rule", "from_jax_import_xla.py")
    with open(path, "rb") as f:
        source = f.read()
    result = rewrite_source(source, path, [])
    assert result.error is None and b"from jax import xla" not in result.updated
    assert [c for c in result.changes if c.rule == "removed-jax-api"] == []


def test_old_jax_ad_members_move_but_the_new_namespace_stays() -> None:
    # jax 0.10 binds jax.ad to a SimpleNamespace of new types: its own members exist, the
    # old module's do not, and only those move.
    assert rule.first_missing("jax.ad.JVPTracer") == "jax.ad.JVPTracer"
    assert rule.first_missing("jax.ad.GradRef") is None
    result = _run("moved_ad_and_api_util.py")
    assert b"jax.ad.GradRef" in result.updated and b"jax.ad.JVPTracer" not in result.updated


def test_abstract_arrays_helper_passed_as_a_value_becomes_the_identity() -> None:
    result = _run("abstract_arrays_helper_as_value.py")
    assert b"map(lambda aval: aval, args)" in result.updated and b"abstract_arrays" not in result.updated.split(b'"""')[2]
    assert {c.safety for c in result.changes} == {Safety.SAFE}
    # Before jax 0.4.36 raise_to_shaped was no identity: an older target keeps the reference.
    older = _run("abstract_arrays_helper_as_value.py", "--target-jax", "0.4.30")
    assert older.updated is None


def test_identity_helpers_read_as_values_behave_as_their_calls(tmp_path) -> None:
    result = _run("identity_helpers_as_values.py")
    assert {c.safety for c in result.changes} == {Safety.SAFE}
    # A conditional expression keeps its meaning: the lambda is parenthesised there.
    assert b"pick = (lambda x: x) if lower else (lambda x: x)" in result.updated
    loaded = _load(result, tmp_path, "identity_values")
    x = jax.numpy.ones(3)
    assert loaded.input_avals([x]) == [jax.typeof(x)]
    assert loaded.lowered([1, 2]) == [1, 2] and loaded.lowered([3], lower=False) == [3]
    assert loaded.to_shaped(5) == 5


def test_a_member_gone_from_the_moved_module_is_reported_not_half_moved() -> None:
    result = _run("moved_module_member_gone.py")
    manual = {(c.line, c.message.split(" ")[0]) for c in result.changes if c.safety is Safety.MANUAL}
    # Line 13 reads `legacy_xla`, whose import moves: it is named as the next run will see it.
    assert manual == {(8, "jax.xla._force"), (13, "jax.interpreters.xla._force")}
    assert b"jax.xla._force(x.block_until_ready())" in result.updated


def test_shaped_array_from_jax_extend_core_now_evaluates_abstractly() -> None:
    import runpy

    import jax

    path = os.path.join(CASES, "extend_core_shapedarray.expected.py")
    module = runpy.run_path(path)
    values, gradients = jax.eval_shape(lambda p: module["harmonics_with_gradients"](p, 2),
                                       jax.ShapeDtypeStruct((5, 3), np.float32))
    assert (values.shape, gradients.shape) == ((5, 9), (5, 3, 9))
    assert values.dtype == gradients.dtype == np.float32


def test_a_moved_import_above_module_code_still_binds_before_it_runs() -> None:
    # Removed and re-added with the later jax imports, `config` was read before bound.
    result = _run("moved_import_above_code.py")
    namespace: dict = {"__name__": "moved_import_above_code"}
    exec(compile(result.updated, "moved_import_above_code.py", "exec"), namespace)
    assert namespace["out_aval"](namespace["np"].zeros(2)).shape == (2,)


def test_defjvp_registers_what_the_standard_jvp_partial_did() -> None:
    import jax
    from jax.extend.core import Primitive

    result = _run("standard_jvp_partial.py")
    namespace: dict = {"__name__": "standard_jvp_partial"}
    exec(compile(result.updated, "standard_jvp_partial.py", "exec"), namespace)
    p = Primitive("removed_jax_api_scaled_sum")
    p.def_impl(lambda x, y: 3 * x + y)
    p.def_abstract_eval(lambda x, y: x)
    namespace["defjvp_pair"](p, lambda t, x, y: 3 * t, lambda t, x, y: t)
    primal, tangent = jax.jvp(lambda a, b: p.bind(a, b), (1.0, 2.0), (1.0, 10.0))
    assert (float(primal), float(tangent)) == (5.0, 13.0)


def test_members_of_the_moved_batching_module_that_moved_on_are_rewritten_in_one_pass() -> None:
    from tests.helpers import rewrite_source

    source = (b"from jax import batching\nimport jax\n\n\ndef f(x):\n    if isinstance(x, batching.Array):\n"
              b"        return batching.not_mapped\n    return jax.batching.not_mapped\n")
    result = rewrite_source(source, "b.py", ["--select", "removed-jax-api"])
    assert result.error is None, result.error
    out = result.updated.decode()
    assert "isinstance(x, jax.Array)" in out and out.count("return None") == 2 and "jax.batching" not in out


def test_config_options_jax_no_longer_has_are_dropped_or_reported() -> None:
    import jax

    for option in rule.GONE_OPTIONS:
        # Still gone here: each would raise at import.
        with pytest.raises(AttributeError, match="Unrecognized config option"):
            jax.config.update(option, True)
    from tests.helpers import rewrite_source

    result = rewrite_source(b"import jax\n\njax.config.update('jax_option_never_seen', 1)\n", "c.py", ["--select", "removed-jax-api"])
    assert [c.safety for c in result.changes] == [Safety.MANUAL] and "jax_option_never_seen" in result.changes[0].message


def test_batch_tracer_is_offered_from_its_private_home_only_as_an_unsafe_fix() -> None:
    import jax._src.interpreters.batching as private

    result = _run("batch_tracer_check.py")
    assert result.updated is None
    assert [(c.line, c.safety) for c in result.changes] == [(13, Safety.MANUAL), (21, Safety.MANUAL)]
    assert all("it would become jax._src.interpreters.batching.BatchTracer (applied with --unsafe-fixes)" in c.message
               for c in result.changes)
    fixed = _run("batch_tracer_check.py", "--unsafe-fixes")
    assert [c.safety for c in fixed.changes] == [Safety.UNSAFE] * 2
    assert b"from jax._src.interpreters.batching import BatchTracer\n" in fixed.updated
    # The class the fix names is the one vmap's tracers are.
    import jax
    seen = []
    jax.vmap(lambda x: seen.append(type(x)) or x)(jax.numpy.ones(2))
    assert seen == [private.BatchTracer]


def test_dotted_jax_xla_import_goes_with_the_registrations_it_served() -> None:
    """``import jax.core; import jax.xla``: the translation registrations read through it
    become MLIR lowerings in the same run, so the import goes at once (a second run must
    find nothing), and the statement left on the line keeps no dangling semicolon."""
    source = (
        b"import jax.core; import jax.xla\n"
        b"from jax.extend.core import Primitive\n"
        b"\n"
        b"p = Primitive('p')\n"
        b"\n"
        b"\n"
        b"def _rule(c, x):\n"
        b"    return c.CustomCallWithLayout(b'k', operands=(x,), shape_with_layout=c.GetShape(x),\n"
        b"                                  operand_shapes_with_layout=(c.GetShape(x),))\n"
        b"\n"
        b"\n"
        b"jax.xla.backend_specific_translations['cpu'][p] = _rule\n"
    )
    result = rewrite_source(source, "dotted.py")
    assert result.error is None
    text = result.updated.decode()
    assert text.startswith("import jax.core\n") and "jax.xla" not in text
    # The move of `jax.xla` asked for `from jax.interpreters import xla`, but the
    # registration it was in became an MLIR lowering: nothing reads it, so it is not added.
    assert "import xla" not in text
    assert rewrite_source(result.updated, "dotted.py").updated is None


def test_imported_function_read_only_through_locals_of_its_name_elsewhere_goes() -> None:
    """``enable_x64 = factory()`` inside another function is a local: the scopes tell it
    from the import, whose own calls are all rewritten, so the import goes."""
    source = (
        b"from jax.experimental import enable_x64\n"
        b"\n"
        b"\n"
        b"def wide(f):\n"
        b"    with enable_x64():\n"
        b"        return f()\n"
        b"\n"
        b"\n"
        b"def other(factory):\n"
        b"    enable_x64 = factory()\n"
        b"    return enable_x64.run()\n"
    )
    result = rewrite_source(source, "x64.py", ["--select", "removed-jax-api"])
    assert result.error is None
    text = result.updated.decode()
    assert "from jax.experimental import" not in text and "with jax.enable_x64(True):" in text
    assert "    enable_x64 = factory()\n    return enable_x64.run()\n" in text


def test_raise_to_shaped_registrations_stay_for_a_target_that_still_reads_them() -> None:
    """Before 0.4.36 jax consulted the table: the registrations are left for such a target."""
    result = _run("raise_to_shaped_registrations.py", "--target-jax", "0.4.35")
    assert result.updated is None and result.error is None
    assert all(c.rule != "removed-jax-api" or c.safety is not Safety.SAFE for c in result.changes)
    fixed = _run("raise_to_shaped_registrations.py", "--target-jax", "0.4.36")
    assert [c.line for c in fixed.changes if c.safety is Safety.SAFE] == [10, 36, 40]


def test_deflinear2_registers_what_the_linear_jvp_pair_did() -> None:
    import jax

    result = _run("linear_jvp_pairs.py")
    changes = [c for c in result.changes if c.rule == "removed-jax-api"]
    assert [c.safety for c in changes].count(Safety.SAFE) == 6
    # Alone, without its transpose, the jvp has no public registration: manual, on its line.
    checked, alone = [c for c in changes if c.safety is Safety.MANUAL]
    with open(os.path.join(CASES, "linear_jvp_pairs.py")) as fh:
        lines = fh.read().splitlines()
    assert lines.index("def register_jvp_only(prim):") + 2 == alone.line
    assert "ad.deflinear2(prim, transpose_rule)" in alone.message
    # Code between the two registrations may use the jvp: the pair is left to the user.
    assert lines.index("def register_checked(prim, transpose, x):") + 3 == checked.line
    assert "may differentiate the primitive" in checked.message
    namespace: dict = {"__name__": "linear_jvp_pairs"}
    exec(compile(result.updated, "linear_jvp_pairs.py", "exec"), namespace)
    scale_p = namespace["scale_p"]
    f = lambda x: scale_p.bind(x, factor=3.0).sum()  # noqa: E731
    x = np.arange(3.0, dtype=np.float32)
    assert jax.jvp(f, (x,), (np.ones(3, np.float32),))[1] == 9.0
    np.testing.assert_allclose(jax.grad(f)(x), [3.0, 3.0, 3.0])
    # The function form registers the pair for another primitive in one call.
    from jax.extend.core import Primitive

    neg_p = Primitive("removed_jax_api_neg")
    neg_p.def_impl(lambda x: -x)
    neg_p.def_abstract_eval(lambda x: x)
    namespace["register_linear"](neg_p, lambda ct, x: [neg_p.bind(ct)])
    np.testing.assert_allclose(jax.grad(lambda x: neg_p.bind(x).sum())(x), [-1.0, -1.0, -1.0])


def _old_flatten_lowering_ir_args(xs):
    """jax.interpreters.mlir.flatten_lowering_ir_args as jax 0.6.2 served it
    (``flatten_ir_values``, read in its source)."""
    from jax._src.lib.mlir import ir

    out = []
    for x in xs:
        if isinstance(x, ir.Value):
            out.append(x)
        else:
            out.extend(x)
    return out


def test_flatten_lowering_ir_args_rewrite_flattens_and_lowers_as_before(tmp_path) -> None:
    import jax
    import numpy as np
    from jax._src.lib.mlir import ir
    from jax.interpreters import mlir

    result = _run("flatten_lowering_ir_args.py")
    assert result.error is None and b"flatten_lowering_ir_args(" not in result.updated
    path = tmp_path / "flatten_rewritten.py"
    path.write_bytes(result.updated)
    namespace: dict = {"__name__": "flatten_rewritten"}
    exec(compile(result.updated, str(path), "exec"), namespace)
    text = jax.jit(namespace["barrier"]).lower(np.ones(3, np.float32), np.ones(2, np.int32)).as_text()
    assert "stablehlo.optimization_barrier" in text and "tensor<3xf32>, tensor<2xi32>" in text
    with mlir.make_ir_context(), ir.Location.unknown():
        module = ir.Module.parse("func.func @f(%a: tensor<2xf32>, %b: tensor<2xf32>) { return }")
        a, b = module.body.operations[0].regions[0].blocks[0].arguments
        values = [a, b]
        assert namespace["doubled"](values) == _old_flatten_lowering_ir_args((v, v) for v in values) == [a, a, b, b]


def test_config_members_are_checked_on_the_installed_config_object() -> None:
    import jax

    # The premise: the installed config object has neither switch, and has the options read.
    assert not hasattr(jax.config, "enable_omnistaging") and not hasattr(jax.config, "disable_omnistaging")
    result = _run("config_members.py")
    assert result.error is None, result.error
    manual = [c for c in result.changes if c.safety is Safety.MANUAL]
    assert [c.line for c in manual] == [16] and "disable_omnistaging" in manual[0].message
    assert sorted(c.line for c in result.changes if c.applied) == [7, 21]
    source = b"from jax.config import config\n\nconfig.enable_omnistaging()\nconfig.disable_omnistaging()\nconfig.update('jax_enable_x64', 1)\n"
    moved = rewrite_source(source, "c.py", ["--select", "removed-jax-api"])
    assert moved.updated == b"from jax import config\n\nconfig.disable_omnistaging()\nconfig.update('jax_enable_x64', 1)\n"
    assert [c.line for c in moved.changes if c.safety is Safety.MANUAL] == [4]


def test_func_dialect_members_are_the_ones_mlir_func_dialect_held() -> None:
    """jax.interpreters.mlir.func_dialect was jaxlib.mlir.dialects.func itself (read in jax
    0.5.3); its replacement star-imports that module: every public member is the same."""
    module = importlib.import_module("jaxlib.mlir.dialects.func")
    replacement = _resolve(rule.MOVED["jax.interpreters.mlir.func_dialect"].new)
    public = [n for n in dir(module) if not n.startswith("_")]
    assert "CallOp" in public and [n for n in public if getattr(replacement, n, None) is not getattr(module, n)] == []


def _exec_expected(case: str) -> dict:
    path = os.path.join(TESTDATA, "rules", "removed-jax-api", f"{case}.expected.py")
    namespace: dict = {"__name__": case}
    with open(path) as fh:
        exec(compile(fh.read(), path, "exec"), namespace)
    return namespace


def test_index_helpers_rewritten_scatter_as_the_helpers_did() -> None:
    """What jax.ops.index_update/add/mul/min/max computed, written with NumPy."""
    import jax.numpy as jnp

    module = _exec_expected("jax_ops_index_helpers")
    state = np.arange(16, dtype=np.uint32)
    want = state.copy()
    want[0] += want[1]
    want[3] = want[3] ^ want[0]
    want[2] = want[2] + want[3]
    got = module["quarter_round"](jnp.asarray(state), 0, 1, 2, 3)
    np.testing.assert_array_equal(np.asarray(got), want)
    # A NumPy array as x: the helpers accepted it, and so does the rewrite.
    tripled, block = module["counter_block"](np.arange(8, dtype=np.uint32), np.uint32(7))
    want_tripled = np.arange(16, dtype=np.uint32)
    want_tripled[::2] *= 3
    np.testing.assert_array_equal(np.asarray(tripled), want_tripled)
    want_block = np.zeros(16, np.uint32)
    want_block[4:12] = np.arange(8)
    want_block[12] = 7
    np.testing.assert_array_equal(np.asarray(block), want_block)
    np.testing.assert_array_equal(np.asarray(module["scaled_rows"](np.zeros(4), np.array([1, 3]), 0.5)),
                                  [1.0, 0.5, 1.0, 0.5])


def test_index_helpers_read_as_values_scatter_as_the_helpers_did() -> None:
    result = _run("jax_ops_index_helpers_as_values.py")
    assert {c.safety for c in result.changes} == {Safety.SAFE}
    module = _exec_expected("jax_ops_index_helpers_as_values")
    x = np.arange(9.0).reshape(3, 3)
    want = x.copy()
    want[1] = 5.0
    np.testing.assert_array_equal(np.asarray(module["inc_subtensor"](True)(x, 5.0, 1)), want)
    want = x.copy()
    want[1, 2] += 5.0
    np.testing.assert_array_equal(np.asarray(module["inc_subtensor"](False)(x, 5.0, 1, 2)), want)
    # The keywords the helpers took still reach .at[...]: sorted, unique indices.
    idx = np.array([0, 2])
    np.testing.assert_array_equal(np.asarray(module["scatter"]("min", np.ones(3), idx, np.array([0.5, 3.0]))),
                                  [0.5, 1.0, 1.0])
    np.testing.assert_array_equal(np.asarray(module["scatter"]("max", np.ones(3), idx, np.array([0.5, 3.0]))),
                                  [1.0, 1.0, 3.0])
    assert float(module["scaled"](np.ones(4), np.array([1, 3]))) == 6.0


def test_make_shaped_array_of_an_expression_evaluates_it_once() -> None:
    import jax.numpy as jnp

    module = _exec_expected("make_shaped_array_of_expression")
    calls = []

    def fem_eval(templates, *args):
        calls.append(args)
        return (jnp.zeros((3, 2), jnp.float32),)

    prim = module["define"](fem_eval, None)
    aval = prim.abstract_eval(jnp.ones(2))[0]
    assert (aval.shape, aval.dtype) == ((3, 2), np.float32) and len(calls) == 1
    aval = module["aval_of"](np.float64(1.0))
    assert aval.shape == () and aval.dtype == jnp.dtype("float32")  # canonicalized without x64


def test_private_lax_numpy_members_move_to_the_same_public_objects() -> None:
    import jax.numpy as jnp

    for member in ("zeros_like", "newaxis", "inf"):
        entry = rule.MOVED.get(f"jax._src.numpy.lax_numpy.{member}")
        assert entry is not None and entry.new == f"jax.numpy.{member}"
    # Still in the private module, or private: not moved.
    assert rule.MOVED.get("jax._src.numpy.lax_numpy.asarray") is None
    assert rule.MOVED.get("jax._src.numpy.lax_numpy._wraps") is None
    # A promotion helper it re-exported goes where jax 0.4.7 renamed it, not to jax.numpy.
    assert rule.MOVED["jax._src.numpy.lax_numpy._promote_dtypes"].new == "jax._src.numpy.util.promote_dtypes"
    module = _exec_expected("private_lax_numpy_members")
    mask, eji = module["degenerate_mask"](jnp.array([1.0, 2.0, 2.0]), jnp.ones((3, 3)), 0.5)
    np.testing.assert_array_equal(np.asarray(mask), np.zeros((3, 3)))  # every entry is now over the threshold
    assert np.isinf(np.asarray(eji)).sum() == 5


def test_private_promotion_helpers_keep_promoting_after_their_rename() -> None:
    import jax.numpy as jnp

    module = _exec_expected("private_numpy_promotion")
    out = module["pfft3d"](jnp.arange(8, dtype=jnp.int32).reshape(2, 2, 2))
    assert out.dtype == jnp.complex64 and complex(out[0, 0, 0]) == 28
    x = module["scaled"](jnp.ones(2, jnp.int32), 0.5)
    assert x.dtype == jnp.float32 and float(x[0]) == 0.5
    with pytest.raises(TypeError, match="pfft3d requires ndarray or scalar arguments"):
        module["pfft3d"]([1, 2])


def test_names_jaxlib_binds_only_with_a_gpu_plugin_are_found_from_its_source() -> None:
    import ast

    source = (
        "from .plugin_support import import_from_plugin\n"
        "_cuda_triton = import_from_plugin('cuda', '_triton')\n"
        "_hip_triton = import_from_plugin('rocm', '_triton')\n"
        "if _cuda_triton:\n    TritonKernel = _cuda_triton.TritonKernel\n    both = 1\n"
        "if _hip_triton:\n    TritonKernel = _hip_triton.TritonKernel\n"
        "both = 2\n"
        "def helper():\n    pass\n")
    modules, only = installed_jax._plugin_bindings(ast.parse(source).body)
    assert modules == {"_cuda_triton": (("cuda", "_triton"),), "_hip_triton": (("rocm", "_triton"),)}
    # `both` is bound unconditionally too: it exists on every install.
    assert only == {"TritonKernel": (("cuda", "_triton"), ("rocm", "_triton"))}


@pytest.mark.skipif(installed_jax._plugin_installed("cuda", "_triton") or installed_jax._plugin_installed("rocm", "_triton"),
                    reason="a GPU plugin is installed: jaxlib binds these names")
def test_names_bound_only_with_a_gpu_plugin_are_reported_where_none_is() -> None:
    result = _run("gpu_plugin_names.py")
    assert result.updated is None
    manual = sorted((c.line, c.message.split(" ")[0]) for c in result.changes if c.safety is Safety.MANUAL)
    # The return annotation (line 8) is reported, not dropped: the name is there with a plugin.
    assert manual == [(8, "jax._src.lib.gpu_triton.TritonKernelCall"), (9, "jax._src.lib.gpu_triton.TritonKernel"),
                      (10, "jax._src.lib.gpu_triton.create_scalar_parameter"),
                      (11, "jax._src.lib.gpu_triton.TritonKernelCall"),
                      (15, "jaxlib.gpu_prng._cuda_prng.threefry2x32_descriptor")]
    assert all("plugin is installed" in c.message for c in result.changes)


def test_every_jax_name_the_guidance_recommends_exists() -> None:
    import re

    for key, text in rule.GUIDANCE.items():
        for name in re.findall(r"(?<![\w.])(jax(?:lib)?(?:\.\w+)+)", text):
            assert rule.first_missing(name.rstrip(".")) is None, (key, name)
    # ...and the names the new entries speak of are gone.
    for key in ("jax._src.pjit.pjit_p", "jax.lax.broadcast_p", "jax.sharding.PositionalSharding", "jax.core.unitvar",
                "jax.experimental.pjit.pjit_p", "jax._src.dispatch.device_put_handlers", "jax.dtypes.complex64",
                "jax.experimental.multihost_utils.all_gather"):
        assert rule.first_missing(key) == key


def test_device_array_beside_tracer_matches_arrays_and_tracers_as_before(tmp_path) -> None:
    """The pair (DeviceArray, Tracer) matched concrete jax arrays and tracers, never NumPy
    values: the rewritten union does the same, on concrete values and inside jit."""
    import jax.numpy as jnp

    result = _run("device_array_beside_tracer.py")
    assert sorted((c.line, c.safety.value) for c in result.changes) == [(8, "safe"), (14, "safe"), (18, "manual"), (22, "manual")]
    module = _load(result, tmp_path, "beside_tracer")
    for value, jax_value in ((jnp.ones(3), True), (np.ones(3), False), (1.5, False), ([1.0], False)):
        assert module.is_jax_value(value) is jax_value, value
        assert isinstance(value, module.array) is (jax_value or isinstance(value, (np.ndarray, np.generic))), value
    seen = []
    jax.jit(lambda x: seen.append((module.is_jax_value(x), isinstance(x, module.array))) or x)(jnp.ones(3))
    assert seen == [(True, True)]


def test_device_array_type_aliases_become_jax_array(tmp_path) -> None:
    """A module-level typing.Union / Optional alias is a type expression: its DeviceArray
    and ShardedDeviceArray become jax.Array (safe), and the rewritten module imports, its
    annotations resolve and its function runs. An alias also handed on as a
    value stays manual, the module unchanged."""
    import typing

    import jax.numpy as jnp

    result = _run("device_array_type_alias.py")
    assert sorted((c.line, c.safety.value) for c in result.changes) == [(8, "safe"), (10, "safe"), (16, "safe")]
    module = _load(result, tmp_path, "aliases")
    assert module.JaxArray is jax.Array
    assert module.Array == typing.Union[np.ndarray, jax.Array]
    hints = typing.get_type_hints(module.norm)
    assert hints["x"] is jax.Array and hints["weights"] == typing.Optional[jax.Array]
    out, size = module.norm(jnp.ones(4), jnp.full(4, 2.0))
    assert isinstance(out, jax.Array) and size == 4.0

    value = _run("device_array_alias_as_value.py")
    assert [(c.line, c.safety.value) for c in value.changes] == [(9, "manual")]
    assert not value.changed


def test_private_optimization_barrier_is_the_public_one(tmp_path) -> None:
    """The private helper flattened, bound optimization_barrier_p and unflattened: the
    rewritten module's barrier keeps a pytree's structure and values, and jit lowers it to
    one stablehlo.optimization_barrier over every leaf. Before 0.4.32 it stays."""
    import jax.numpy as jnp

    result = _run("private_optimization_barrier.py")
    assert sorted((c.line, c.safety.value) for c in result.changes) == [(4, "safe"), (10, "safe"), (14, "safe")]
    module = _load(result, tmp_path, "barrier")
    assert module.barriers == [(1.0, 2.0)]
    step = lambda acc, _: ((acc[0] + 1, acc[1] * 2), None)  # noqa: E731
    lowered = jax.jit(lambda a, b: module.ring(step, (a, b), 2)).lower(jnp.ones(3), jnp.ones(2)).as_text()
    assert lowered.count("stablehlo.optimization_barrier") == 2
    assert module.ring(step, (jnp.zeros(3), jnp.ones(2)), 2)[1].tolist() == [4.0, 4.0]
    old = _run("private_optimization_barrier.py", "--target-jax", "0.4.31")
    assert old.updated is None


def test_standard_primitive_and_naryop_dtype_rule_work_as_they_did() -> None:
    """The rewritten primitives evaluate, jit, lower and batch; their abstract evaluation
    gives the shape rule's shapes with the dtype rule's dtypes (weak only when every
    operand is), and the dtype rule still rejects what naryop_dtype_rule rejected. The
    masking registrations and the masking import are gone; before jax 0.4.36 (no
    jax.extend.core.Primitive for the helper) only they go."""
    import jax.numpy as jnp

    result = _run("lax_standard_primitive.py")
    assert sorted((c.line, c.safety.value) for c in result.changes) == [
        (22, "safe"), (24, "safe"), (32, "safe"), (34, "safe"), (36, "safe"), (40, "safe")]
    assert b"masking" not in result.updated.split(b'"""')[-1]
    module = _exec_expected("lax_standard_primitive")
    sincos_p, scale_p = module["sincos_p"], module["scale_p"]
    x, y = jnp.linspace(0.0, 1.0, 4, dtype=jnp.float32), jnp.full(4, 2.0, jnp.float32)
    eager = sincos_p.bind(x, y)
    jitted = jax.jit(lambda a, b: sincos_p.bind(a, b))(x, y)
    for got in (eager, jitted):
        np.testing.assert_allclose(np.asarray(got[0]), np.sin(np.asarray(x)) * 2, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(got[1]), np.cos(np.asarray(x)) * 2, rtol=1e-6)
    shapes = jax.eval_shape(lambda a, b: sincos_p.bind(a, b), x, y)
    assert [(s.shape, s.dtype) for s in shapes] == [((4,), jnp.float32)] * 2
    batched = jax.vmap(lambda a, b: sincos_p.bind(a, b))(jnp.ones((3, 4)), jnp.ones((3, 4)))
    assert batched[0].shape == (3, 4)
    assert "stablehlo.sine" in jax.jit(lambda a, b: sincos_p.bind(a, b)).lower(x, y).as_text()
    assert float(jax.jit(scale_p.bind)(jnp.float32(1.5))) == 3.0
    weak = jax.core.ShapedArray((), jnp.float32, weak_type=True)
    assert scale_p.abstract_eval(weak)[0].weak_type and not scale_p.abstract_eval(jax.typeof(x))[0].weak_type
    with pytest.raises(TypeError, match="sincos does not accept dtype int32 at position 0"):
        jax.eval_shape(lambda a, b: sincos_p.bind(a, b), jnp.ones(4, jnp.int32), y)
    with pytest.raises(TypeError, match="same dtype"):
        jax.eval_shape(lambda a, b: sincos_p.bind(a, b), jnp.ones(4, jnp.float16), y)
    older = _run("lax_standard_primitive.py", "--target-jax", "0.4.30").updated
    assert b"lax.standard_primitive(" in older and b"masking.defnaryop" not in older


def test_masking_registrations_go_but_other_uses_keep_the_import_reported(tmp_path) -> None:
    source = (b"from jax.interpreters import masking\n"
              b"import my_ops\n\n"
              b"masking.defvectorized(my_ops.p)\n"
              b"masking.shape_rules[my_ops.p] = my_ops.shape_rule\n"
              b"POLY = masking.Poly\n")
    path = tmp_path / "ops.py"
    path.write_bytes(source)
    result = rewrite_source(source, str(path), ["--select", "removed-jax-api"])
    assert result.updated == b"from jax.interpreters import masking\nimport my_ops\n\nPOLY = masking.Poly\n"
    manual = [c for c in result.changes if c.safety is Safety.MANUAL]
    assert [c.line for c in manual] == [1] and "shapecheck transformations went in jax 0.3.16" in manual[0].message


def test_axis_primitives_become_the_plain_primitives_jax_made_of_its_own() -> None:
    """jax 0.4.36 declared cond_p, while_p, psum_p... with core.Primitive; the rewritten
    module's primitives (a subclass too) are jax.extend.core Primitives that bind, jit
    and lower as before. Before 0.4.36 they stay."""
    import jax.numpy as jnp
    from jax.extend.core import Primitive

    result = _run("axis_primitive_control_flow.py")
    assert sorted((c.line, c.safety.value) for c in result.changes) == [(10, "safe"), (14, "safe")]
    module = _exec_expected("axis_primitive_control_flow")
    assert type(module["qfor_p"]) is Primitive and module["LoopPrimitive"].__mro__[1] is Primitive
    assert float(module["scaled"](1.5)) == 12.0
    assert float(jax.jit(module["scaled"])(1.5)) == 12.0
    assert "stablehlo.multiply" in jax.jit(module["scaled"]).lower(1.5).as_text()
    out = jax.jit(lambda x: module["qwhile_p"].bind(x, body=lambda v: (v + 1,), trips=2))(jnp.zeros(2))
    assert out[0].tolist() == [2.0, 2.0]
    assert _run("axis_primitive_control_flow.py", "--target-jax", "0.4.35").updated is None


def test_custom_transforms_become_custom_jvp_with_the_same_rules() -> None:
    """custom_transforms' defjvp summed rule(g, ans, *args) over the differentiated
    arguments; custom_jvp's defjvps does the same, also calling a rule on the zero tangent
    of an argument not differentiated: safe for one argument and one rule (the issue #1052
    square root), unsafe otherwise, so a default run converts only the first."""
    result = _run("custom_transforms_defjvp.py")
    assert [(c.line, c.safety.value) for c in result.changes if c.applied] == [(10, "safe"), (13, "safe")]
    assert [c.line for c in result.changes if c.safety is Safety.MANUAL] == [7, 7, 16]
    module = _exec_expected("custom_transforms_defjvp_unsafe")
    assert float(jax.grad(module["safe_sqrt"])(4.0)) == 0.25
    assert float(jax.grad(module["safe_sqrt"])(0.0)) == 0.0  # the rule's guard, not sqrt's infinite slope
    x = 3.0
    np.testing.assert_allclose(float(jax.grad(module["energy"])(x)), 0.5 / np.sqrt(x) + 2.0 / x, rtol=1e-6)
    np.testing.assert_allclose(float(jax.grad(module["scaled_log"], argnums=1)(x, 2.0)), np.log(x), rtol=1e-6)
    assert _run("custom_transforms_defjvp.py", "--target-jax", "0.2.11").updated is None


def test_manual_reports_carry_the_guidance_of_the_name_they_stand_for() -> None:
    """A member read through a module that moved (``jax.xla`` is jax.interpreters.xla)
    gets the guidance of its name there; removed tracing helpers get theirs."""
    source = (
        b"import jax\n"
        b"from jax.interpreters import ad, partial_eval as pe\n"
        b"\n"
        b"\n"
        b"def f(x, fun, avals, p):\n"
        b"    ad.defvjp(p, None)\n"
        b"    if type(x) != jax.xla.DeviceArray:\n"
        b"        return pe.abstract_eval_fun(fun, *avals)\n"
    )
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    messages = {c.line: c.message for c in result.changes if c.safety is Safety.MANUAL}
    assert "give the primitive a JVP rule (ad.defjvp)" in messages[6]
    assert "which has no DeviceArray either; jax.Array in annotations" in messages[7]
    assert "jax.eval_shape(functools.partial(fun, **params), *avals)" in messages[8]


def test_an_attribute_the_module_sets_on_jax_is_reported_as_its_own() -> None:
    """jax2onnx-style plugins put their primitive on jax's module (``jax.nn.gelu_p =
    Primitive(...)``): not a name jax removed, and the report says so."""
    source = (
        b"import jax\n"
        b"from jax.extend.core import Primitive\n"
        b"\n"
        b"jax.nn.gelu_p = Primitive('jax.nn.gelu')\n"
        b"\n"
        b"\n"
        b"def gelu(x):\n"
        b"    return jax.nn.gelu_p.bind(x)\n"
    )
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert result.updated is None
    read = [c for c in result.changes if c.line == 8]
    assert [c.safety for c in read] == [Safety.MANUAL]
    assert read[0].message.startswith("jax.nn.gelu_p is not jax's: this module sets it on jax's module itself "
                                      "(`jax.nn.gelu_p = Primitive('jax.nn.gelu')`)")


#: A check run in a subprocess on four CPU devices, with the namespace of the expected file
#: named by its first argument.
_FOUR_CPUS = r'''
import os, sys, warnings
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
os.environ["JAX_PLATFORMS"] = "cpu"
import jax, jax.numpy as jnp, numpy as np

path = sys.argv[1]
namespace = {"__name__": os.path.basename(path).split(".")[0]}
exec(compile(open(path).read(), path, "exec"), namespace)
'''


def _on_four_cpus(check: str, case: str) -> str:
    """What ``check`` prints, run after :data:`_FOUR_CPUS` on the expected file of ``case``."""
    import subprocess
    import sys

    path = os.path.join(TESTDATA, "rules", "removed-jax-api", f"{case}.expected.py")
    done = subprocess.run([sys.executable, "-c", _FOUR_CPUS + check, path], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


_REPLICATION_CHECK = r'''
from jax._src import api as private  # jax's last implementation, still there privately

helper = namespace["_ccmigrate_device_put_replicated"]
assert namespace["PLACEMENT"]["replicated"] is helper
devs = jax.local_devices()
assert len(devs) == 4
state = namespace["init_state"](jax.random.key(0))
assert state["params"]["w"].shape == (4, 3, 2)
cases = [jnp.arange(6.0).reshape(2, 3), np.ones(3, np.int32), 1.5, 2, True, {"a": (np.zeros(1), 3.0)},
         jnp.asarray(1.0) * 2.0, np.float32(3), jax.random.key(0), jax.random.PRNGKey(1), jnp.zeros((2, 0))]


def compare(old, new, case):
    assert jax.tree_util.tree_structure(old) == jax.tree_util.tree_structure(new)
    for x, y in zip(jax.tree_util.tree_leaves(old), jax.tree_util.tree_leaves(new)):
        assert jax.typeof(x) == jax.typeof(y), (case, jax.typeof(x), jax.typeof(y))
        assert x.sharding == y.sharding
        assert [(s.device, s.index) for s in x.addressable_shards] == [(s.device, s.index) for s in y.addressable_shards]
        if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
            x, y = jax.random.key_data(x), jax.random.key_data(y)
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


for case in cases:
    for devices in (devs, devs[:2], [devs[2], devs[0]], tuple(devs[1:2])):
        compare(private.device_put_replicated(case, devices), helper(case, devices), case)
for bad in ([], None):
    try:
        helper(1.0, bad)
    except ValueError:
        continue
    raise AssertionError(bad)
sharded = namespace["_ccmigrate_device_put_sharded"]
batch = namespace["shard"](jnp.arange(8.0))
assert batch.shape == (4, 2) and [s.device for s in batch.addressable_shards] == devs
makers = [lambda i: jnp.arange(6.0).reshape(2, 3) + i, lambda i: np.ones(3, np.int32) * i, lambda i: 1.5 + i,
          lambda i: i, lambda i: {"a": (np.zeros(1) + i, 3.0 + i)}, lambda i: jnp.asarray(1.0) * i,
          lambda i: jax.random.key(i), lambda i: jax.random.PRNGKey(i)]
for make in makers:
    for devices in (devs, devs[:2], [devs[2], devs[0]], tuple(devs[1:2])):
        shards = [make(i) for i in range(len(devices))]
        compare(private.device_put_sharded(shards, devices), sharded(shards, devices), shards)
for bad in (iter([1.0, 2.0]), [1.0], [jnp.ones(2), jnp.ones(3)]):
    try:
        sharded(bad, devs[:2])
    except (TypeError, ValueError):
        continue
    raise AssertionError(bad)
print("identical")
'''


def test_device_put_helpers_build_what_jax_built() -> None:
    """jax 0.10.0 removed jax.device_put_replicated and device_put_sharded but kept their
    last implementation in jax._src.api: on four CPU devices the helpers the rewrite adds
    give the same arrays (aval with weak type, sharding, shards' devices and indices,
    values; PRNG keys too), and raise where they raised."""
    private = importlib.import_module("jax._src.api")
    if not (hasattr(private, "device_put_replicated") and hasattr(private, "device_put_sharded")):
        pytest.skip("this jax no longer keeps the implementation privately")
    assert _on_four_cpus(_REPLICATION_CHECK, "device_put_replicated") == "identical"


def test_random_shuffle_becomes_an_independent_permutation() -> None:
    """jax.random.shuffle ran _shuffle(key, x, axis), as permutation(..., independent=True)
    does (compared on jax 0.4.28 and 0.4.30, where both exist); here: the rewritten loader
    permutes each column on its own and keeps every example."""
    module = _exec_expected("random_shuffle")
    key = jax.random.key(0)
    features = np.arange(12.0).reshape(4, 3)
    out = np.asarray(module["shuffled_columns"](key, features))
    expected = np.asarray(jax.random.permutation(key, features, axis=1, independent=True))
    np.testing.assert_array_equal(out, expected)
    assert sorted(out.ravel().tolist()) == features.ravel().tolist()
    batches = list(module["epoch_batches"](key, np.arange(10.0), np.arange(10.0), 4))
    assert sorted(np.concatenate([b[0] for b in batches]).tolist()) == list(range(10))


_XMAP_CHECK = r'''
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

seen = namespace["SEEN_SHAPES"]
x = (jnp.arange(12 * 5, dtype=jnp.float32).reshape(12, 1, 5) - 20.0) / 7.0
w = jnp.linspace(0.5, 1.5, 5, dtype=jnp.float32).reshape(1, 5)
reference = x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-5) * w

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # ``with mesh:``, deprecated from jax 0.8
    out = namespace["sharded_rms_norm"](x, w)
# The primitive (no batching rule) saw one device's slice without the named axis, as under xmap.
assert set(seen) == {(3, 1, 5)}, seen
np.testing.assert_allclose(np.asarray(out), np.asarray(reference), rtol=1e-6, atol=1e-6)
mesh = Mesh(jax.local_devices(), ("x",))
assert out.sharding.is_equivalent_to(NamedSharding(mesh, P("x", None, None)), 3)

# Under jax.set_mesh instead of ``with mesh:``, and with two slices on each device.
seen.clear()
with jax.set_mesh(mesh):
    out = jax.jit(lambda a, b: namespace["xmap_rms_norm"](a, b, device_count=8))(jnp.tile(x, (2, 1, 1)), w)
assert set(seen) <= {(3, 1, 5), (2, 3, 1, 5)} and (3, 1, 5) in seen, seen
np.testing.assert_allclose(np.asarray(out), np.tile(np.asarray(reference), (2, 1, 1)), rtol=1e-6, atol=1e-6)
# Several results: out_axes one entry per result (a list of {position: name} dicts here).
two = namespace["_ccmigrate_xmap"](lambda a, b: (a * b, a + b), in_axes=({0: "x"}, {}),
                                   out_axes=[{0: "x"}, {0: "x"}], axis_resources={"x": "x"})
with jax.set_mesh(mesh):
    product, total = two(jnp.arange(8.0).reshape(4, 2), jnp.full(2, 2.0))
np.testing.assert_array_equal(np.asarray(product), np.arange(8.0).reshape(4, 2) * 2)
np.testing.assert_array_equal(np.asarray(total), np.arange(8.0).reshape(4, 2) + 2)
# One in_axes entry alone: xmap took it for every argument (mesh-transformer-jax's
# ``in_axes=["batch", ...]``); here both arguments are mapped.
lone = namespace["_ccmigrate_xmap"](lambda a, b: a - b, in_axes=["x", ...], out_axes=["x", ...],
                                    axis_resources={"x": "x"})
with jax.set_mesh(mesh):
    difference = lone(jnp.arange(8.0).reshape(4, 2), jnp.ones((4, 2)))
np.testing.assert_array_equal(np.asarray(difference), np.arange(8.0).reshape(4, 2) - 1)
try:
    namespace["_ccmigrate_xmap"](namespace["rms_norm"], (("x", None), (None,)), ("x", None), {"x": "x"})(x)
except TypeError:
    pass
else:
    raise AssertionError("one argument for two in_axes entries")
print("as xmap ran it")
'''


def test_xmap_helper_runs_the_function_on_each_devices_slice() -> None:
    """jax's custom-op tutorial ran an RMS-norm primitive with no batching rule under xmap,
    one slice of the batch per device of ``with Mesh(...)``. The helper the rewrite adds
    (jax.shard_map) gives the primitive the same per-device slice without the named axis
    and the tutorial's result, laid out over the mesh axis. (Compared with xmap on jax
    0.4.30: equal to float rounding, 3.6e-7, the fixture's lowering being jnp code that
    XLA fuses differently in the two programs.)"""
    assert _on_four_cpus(_XMAP_CHECK, "xmap_rms_norm") == "as xmap ran it"


@pytest.mark.parametrize("call, why", [
    ("xmap(f, in_axes=((None, 'x'),), out_axes=('x', None), axis_resources={'x': 'x'})", "first in each argument"),
    ("xmap(f, in_axes=(('x', 'y'),), out_axes=('x', None), axis_resources={'x': 'x'})", "first in each argument"),
    ("xmap(f, in_axes=(('x', None),), out_axes=(None, 'x'), axis_resources={'x': 'x'})", "first in each argument"),
    ("xmap(f, in_axes=(('x', None),), out_axes=[('x', None), (None,)], axis_resources={'x': 'x'})", "(out_axes)"),
    ("xmap(f, in_axes=(('x', None),), out_axes=('x', None), axis_resources={'x': ('x', 'y')})", "one mesh axis"),
    ("xmap(f, in_axes=(('x', None),), out_axes=('x', None))", "axis_resources"),
    ("xmap(f, in_axes=AXES, out_axes=('x', None), axis_resources={'x': 'x'})", "in_axes: one entry per argument"),
    ("xmap(f, in_axes=('x', None), out_axes=('x', 'y'), axis_resources={'x': 'x'})", "first in each argument"),
    ("xmap(f, in_axes=(None, 'x'), out_axes=('x', None), axis_resources={'x': 'x'})", "first in each argument"),
    ("xmap(f, in_axes=((None,),), out_axes=('x',), axis_resources={'x': 'x'})", "no argument maps"),
])
def test_xmap_of_another_shape_stays_manual(call: str, why: str) -> None:
    source = f"from jax.experimental.maps import xmap\n\n\ndef run(f, x):\n    return {call}(x)\n".encode()
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert result.updated is None
    found = [c for c in result.changes if c.line == 5]
    assert [c.safety for c in found] == [Safety.MANUAL] and why in found[0].message, found


def test_xmap_with_one_entry_per_result_is_rewritten() -> None:
    source = (b"from jax.experimental.maps import xmap\n\n\ndef f(x, w):\n    return x * w, x + w\n\n\n"
              b"g = xmap(f, in_axes=({0: 'b'}, {}), out_axes=[{0: 'b'}, {0: 'b'}], axis_resources={'b': 'x'})\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert "g = _ccmigrate_xmap(f, in_axes=({0: 'b'}, {}), out_axes=[{0: 'b'}, {0: 'b'}]" in result.updated.decode()
    # A result without the named axis is not what the helper makes.
    partial_out = source.replace(b"out_axes=[{0: 'b'}, {0: 'b'}]", b"out_axes=[{0: 'b'}, {}]")
    result = rewrite_source(partial_out, "m.py", ["--select", "removed-jax-api"])
    assert result.updated is None and any("(out_axes)" in c.message for c in result.changes)


def test_xmap_with_one_in_axes_entry_for_every_argument_is_rewritten() -> None:
    """xmap read an in_axes that is one entry (names, None or ...) as the entry of every
    argument; the helper does too (run in the four-CPU check above)."""
    source = (b"from jax.experimental.maps import xmap\n\n\n"
              b"g = xmap(f, in_axes=('x', None, None), out_axes=('x', None, None), axis_resources={'x': 'x'})\n"
              b"h = xmap(f, in_axes={0: 'x'}, out_axes={0: 'x'}, axis_resources={'x': 'x'})\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    text = result.updated.decode()
    assert "g = _ccmigrate_xmap(f, in_axes=('x', None, None)," in text and "h = _ccmigrate_xmap(f, in_axes={0: 'x'}," in text
    assert [c.safety for c in result.changes if c.line in (4, 5)] == [Safety.SAFE, Safety.SAFE]


def test_xmap_beside_a_collective_needs_unsafe_fixes() -> None:
    source = (b"import jax\nfrom jax.experimental.maps import xmap\n\n\n"
              b"def f(x):\n    return x / jax.lax.psum(x, 'x')\n\n\n"
              b"g = xmap(f, in_axes=(['x', ...],), out_axes=['x', ...], axis_resources={'x': 'x'})\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert result.updated is None
    found = [c for c in result.changes if c.line == 9]
    # Left as it was, import included, and said to need --unsafe-fixes.
    assert [c.safety for c in found] == [Safety.MANUAL] and "uses psum" in found[0].message \
        and found[0].message.endswith("(applied with --unsafe-fixes)")
    fixed = rewrite_source(source, "m.py", ["--select", "removed-jax-api", "--unsafe-fixes"]).updated.decode()
    assert "g = _ccmigrate_xmap(f, in_axes=(['x', ...],)" in fixed and "maps import" not in fixed


def test_an_unused_import_of_the_deleted_xla_extension_goes() -> None:
    """``from jaxlib.xla_extension import XlaBuilder, XlaOp`` (jaxlib deleted the module)
    left behind once nothing reads it: it would fail at import, so it goes; read, it stays
    and is reported (found by the fuzzer, a module whose translation rule was deleted)."""
    unused = b"from typing import Any\n\nfrom jaxlib.xla_extension import XlaBuilder, XlaOp\n\nX: Any = 1\n"
    result = rewrite_source(unused, "m.py", [])
    assert result.updated == b"from typing import Any\n\nX: Any = 1\n"
    used = b"from jaxlib.xla_extension import XlaBuilder\n\nBUILDERS = [XlaBuilder]\n"
    result = rewrite_source(used, "m.py", [])
    assert result.updated is None
    assert [c.safety for c in result.changes if c.line == 1] == [Safety.MANUAL]


def test_a_dialect_jaxlib_does_not_ship_is_reported() -> None:
    """jaxlib.mlir.dialects is a folder without __init__.py: a dialect module that is not
    in it (Catalyst's ``tensor``) is missing, and reported; one that is, is not."""
    assert rule.first_missing("jaxlib.mlir.dialects.tensor.ExtractOp") == "jaxlib.mlir.dialects.tensor"
    assert rule.first_missing("jaxlib.mlir.dialects.arith.IndexCastOp") is None
    source = b"from jaxlib.mlir.dialects.tensor import ExtractOp\n\n\ndef f(x):\n    return ExtractOp(x)\n"
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    found = [c for c in result.changes if c.line == 1]
    assert [c.safety for c in found] == [Safety.MANUAL] and "ships no tensor dialect" in found[0].message


def test_isinstance_of_concrete_array_is_false_so_traced_values_take_the_abstract_path() -> None:
    module = _exec_expected("concrete_aval_checks")
    value = np.array([1.0, 2.0], dtype=np.float32)
    assert module["to_solver_input"](value, (2,)).tolist() == [1.0, 2.0]  # a concrete array is read
    assert module["scale"](value).tolist() == [2.0, 4.0]
    assert jax.jit(module["scale"])(value).tolist() == [0.0, 0.0]  # a tracer: zeros, no ConcreteArray lookup
    assert module["is_known"](value) and not module["is_known"](jax.typeof(value))
    # One type in a tuple is the type itself; read otherwise it stays, reported.
    source = b"from jax.core import ConcreteArray\n\n\ndef f(aval):\n    return ConcreteArray(aval.dtype, 1)\n"
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert result.updated is None and [c.safety for c in result.changes] == [Safety.MANUAL]


def test_spmd_mode_contexts_go_and_their_blocks_run_as_before() -> None:
    module = _exec_expected("spmd_mode_contexts")
    mesh = module["mesh_of_all_devices"]()
    x = np.arange(8, dtype=np.complex64)
    np.testing.assert_allclose(np.asarray(module["forward"](mesh, x)), np.fft.fft(x), atol=1e-4)
    np.testing.assert_allclose(np.asarray(module["backward"](np.fft.fft(x))), x, atol=1e-5)
    assert module["relative_error"](mesh, x, x + 1) == pytest.approx(np.sqrt(8) / np.linalg.norm(x + 1), rel=1e-5)
    # A `with ... as m` binds what the block may read, and a comment below the block's last
    # line has no line to go to: both stay, reported.
    for source in (b"import jax\n\n\ndef f():\n    with jax.spmd_mode('allow_all') as m:\n        return m\n",
                   b"import jax\n\n\ndef f(x):\n    with jax.spmd_mode('allow_all'):\n        y = x\n        # end\n    return y\n"):
        result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
        assert result.updated is None and [c.safety for c in result.changes] == [Safety.MANUAL]
        assert "delete the `with spmd_mode(...)` and keep its block" in result.changes[0].message
    # Imported, the name stays imported (and reported) while one `with` of it is left.
    source = (b"from jax import spmd_mode\n\n\ndef f(x):\n    with spmd_mode('allow_all') as m:\n        return m\n\n\n"
              b"def g(x):\n    with spmd_mode('allow_all'):\n        return x\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert result.updated.startswith(b"from jax import spmd_mode\n") and result.updated.endswith(b"def g(x):\n    return x\n")
    assert sorted((c.line, c.safety.value) for c in result.changes) == [(1, "manual"), (5, "manual"), (10, "safe")]
    # Imported at the top of a function, its reads there tell: the import goes with its
    # `with`, and an unread one goes too (a test driver importing per function).
    source = (b"import jax\n\n\ndef f(x):\n    from jax import spmd_mode\n    with spmd_mode('allow_all'):\n"
              b"        return x\n\n\ndef g(x):\n    from jax import spmd_mode\n    return x\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert result.updated == b"import jax\n\n\ndef f(x):\n    return x\n\n\ndef g(x):\n    return x\n"
    assert all(c.safety is Safety.SAFE for c in result.changes)


def test_private_prng_module_moved_and_an_extension_prng_registers_and_draws() -> None:
    """The rewritten extension's PRNG, built from threefry's pieces, draws what threefry
    draws; on a jax before 0.10.2 (target 0.10.0) nothing moves."""
    module = _exec_expected("private_prng_module")
    mine, reference = module["uniform_pair"](3)
    np.testing.assert_array_equal(np.asarray(mine), np.asarray(reference))
    source = open(os.path.join(TESTDATA, "rules", "removed-jax-api", "private_prng_module.py"), "rb").read()
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api", "--target-jax", "0.10.0"])
    code = result.updated.split(b'"""', 2)[2]  # past the docstring, which names the new module
    assert b"jax._src.random" not in code and b"from jax._src import prng as jax_prng" in code
    assert b"from jax.extend.random import threefry_prng_impl" in code  # there since 0.4.28 at least


def test_comments_of_a_dropped_line_go_to_the_block_of_a_dropped_with_after_it() -> None:
    """The engine carries a removed line's comments to the next statement; a ``with`` that
    became its block's statements counts as that many, so nothing shifts."""
    source = (b"import jax\n\n\ndef f(x):\n    # configure\n    jax.config.update('jax_spmd_mode', 'allow_all')\n"
              b"    with jax.spmd_mode('allow_all'):\n        y = x + 1\n        z = y * 2\n    # done\n    return z\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert result.updated == (b"import jax\n\n\ndef f(x):\n    # configure\n    y = x + 1\n    z = y * 2\n"
                              b"    # done\n    return z\n")


def test_isinstance_of_positional_sharding_is_false_and_the_rest_still_dispatches() -> None:
    from jax.sharding import Mesh, NamedSharding, PartitionSpec, SingleDeviceSharding

    module = _exec_expected("positional_sharding_checks")
    device = jax.devices()[0]
    mesh = Mesh(np.array([device]), ("x",))
    assert module["is_replicated"](NamedSharding(mesh, PartitionSpec()))
    assert not module["is_replicated"](NamedSharding(mesh, PartitionSpec("x")))
    assert module["heads_axis"](SingleDeviceSharding(device)) is None
    assert module["heads_axis"](NamedSharding(mesh, PartitionSpec(None, None, "x"))) == "x"
    # Made, or read other than in isinstance: no rewrite, the import stays and is reported.
    source = b"from jax.sharding import PositionalSharding\n\n\ndef f(devices):\n    return PositionalSharding(devices)\n"
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert result.updated is None and [c.safety for c in result.changes] == [Safety.MANUAL]
    # A test whose object has an effect when evaluated stays too.
    source = b"from jax.sharding import PositionalSharding\n\n\ndef f(g):\n    return isinstance(g(), PositionalSharding)\n"
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert result.updated is None and [c.safety for c in result.changes] == [Safety.MANUAL]


def test_numpy_names_removed_in_0_4_24_compute_what_they_did() -> None:
    """in1d tested the flattened first array (a 1-D result, whatever its shape); msort
    sorted along axis 0; trapz was the trapezoid rule jax.scipy.integrate now holds."""
    module = _exec_expected("numpy_removed_in_0_4_24")
    pixels = np.array([[3, 1, 4], [1, 5, 9]])
    observed = np.array([1, 9, 2])
    observed_mask = np.asarray(module["observed_mask"](pixels, observed))
    assert observed_mask.shape == (6,)
    assert observed_mask.tolist() == [v in (1, 9, 2) for v in pixels.ravel()]
    assert np.asarray(module["unobserved_mask"](pixels, observed)).tolist() == (~observed_mask).tolist()
    table = np.array([[3.0, 1.0], [1.0, 5.0], [2.0, 0.0]], np.float32)
    assert np.asarray(module["sorted_columns"](table)).tolist() == np.sort(table * 2, axis=0).tolist()
    z = np.linspace(0.0, 1.0, 11, dtype=np.float32)
    inv_e = np.stack([z, z ** 2])
    expected = [np.sum((row[1:] + row[:-1]) / 2 * np.diff(z)) for row in inv_e]
    np.testing.assert_allclose(np.asarray(module["comoving_distance"](z, inv_e)), expected, rtol=1e-6)


def test_pallas_repeat_rewrite_tiles_like_the_removed_helper() -> None:
    """``pltpu.repeat(x, n, axis)`` was ``jnp.tile`` with ``n`` on ``axis`` (jax 0.10.0's
    definition); the rewrite's ``jnp.concatenate([x] * n, axis=axis)`` gives the same array."""
    source = b"from jax.experimental.pallas import tpu as pltpu\n\ndef f(x, n, axis):\n    return pltpu.repeat(x, n, axis=axis)\n"
    result = rewrite_source(source, "repeat.py", ["--select", "removed-jax-api"])
    assert result.error is None and result.updated is not None
    assert b"jnp.concatenate([x] * n, axis=axis)" in result.updated or b"concatenate([x] * n, axis=axis)" in result.updated
    namespace: dict = {}
    exec(compile(result.updated, "repeat.py", "exec"), namespace)
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    for axis in (0, 1, 2, -1):
        reps = [3 if i == axis % x.ndim else 1 for i in range(x.ndim)]
        np.testing.assert_array_equal(np.asarray(namespace["f"](x, 3, axis)), np.tile(x, reps))


def test_a_star_import_of_a_removed_module_is_reported_even_one_another_rule_owns() -> None:
    """jaxlib.hlo_helpers belongs to the custom-call rules, which migrate the names imported
    from it; a star import names none, so this rule reports it (jax.extend.ffi's rule
    reports its own, once). An existing module's star import is fine; one in an import
    guard is not reported."""
    source = (b"from jaxlib.hlo_helpers import *\nfrom jax.extend.ffi import *\nfrom jax.interpreters.mlir import *\n"
              b"try:\n    from jaxlib.mhlo_helpers import *\nexcept ImportError:\n    pass\n")
    result = rewrite_source(source, "star.py", ["--select", "removed-jax-api,custom-call-api,jax-extend-ffi"])
    assert result.error is None and result.updated is None
    reported = [(c.line, c.rule, c.safety, c.message.split(" (")[0]) for c in result.changes]
    assert reported == [
        (1, "removed-jax-api", Safety.MANUAL, "jaxlib.hlo_helpers does not exist in the installed jax 0.10.2"),
        (2, "jax-extend-ffi", Safety.MANUAL, "`from jax.extend.ffi import *`: import the names you use from jax.ffi"),
    ], reported
    assert "a star import of it names nothing a rule could follow" in result.changes[0].message


def test_jax_core_names_deprecated_in_0_10_move_to_the_homes_their_warnings_name(tmp_path) -> None:
    """jax 0.10.0 deprecated these jax.core names ("Use jax.extend.core.X", "Use
    jax.errors.X") and 0.11.0 removed them: rewritten on a 0.10 target as well, the module
    imports with no deprecation left but abstract_token's (no public home before 0.11.0)."""
    import warnings

    result = _run("core_deprecated_names.py")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = _load(result, tmp_path, "core_deprecated_names")
    deprecated = {str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)}
    # (jax warns of a deprecated name once per process: a subset, whatever ran before.)
    assert deprecated <= {"jax.core.abstract_token is deprecated."}
    src_core = importlib.import_module("jax._src.core")
    assert issubclass(module.OrderedIOEffect, src_core.Effect)
    assert module.barrier_abstract_eval(None) == (src_core.abstract_token, {module.ordered_io})
    aval, effects = module.pure_abstract_eval(np.zeros((2, 3), np.float32))
    assert (aval.shape, effects) == ((2, 3), src_core.no_effects)
    assert module.is_jax_value(np.float32(1)) and not module.is_jax_value(object())
    jaxpr = jax.make_jaxpr(lambda x: (x + 1, x * 2))(1.0).jaxpr
    eqns = module.drop_unused(jaxpr, set(jaxpr.outvars[:1]))
    assert [type(v).__name__ for e in eqns for v in e.outvars] == ["Var", "DropVar"]
    assert len(result.changes) == 6 and all(c.safety is Safety.SAFE for c in result.changes)
    assert sum("is deprecated (removed in jax 0.11.0)" in c.message for c in result.changes) == 4


@pytest.mark.parametrize("target, token_home, call_impl", [
    ("0.10.2", "from jax.core import abstract_token", "from jax.extend.core import call_impl"),
    # jax 0.11.0 made the token public in jax.ffi: the move goes on to it.
    ("0.11", "from jax.ffi import abstract_token", "from jax.extend.core import call_impl"),
    # jax 0.12.0 removed call_impl from jax.extend.core too: no move for that target.
    ("0.12", "from jax.ffi import abstract_token", None),
])
def test_a_move_follows_its_new_home_as_later_releases_moved_or_removed_it(target, token_home, call_impl) -> None:
    source = (b"from jax.abstract_arrays import abstract_token\nfrom jax import core\n\n"
              b"TOKEN = abstract_token\nIMPL = core.call_impl\n")
    updated = rewrite_source(source, "m.py", ["--select", "removed-jax-api", "--target-jax", target]).updated.decode()
    assert token_home in updated.splitlines()
    if call_impl is None:
        assert "IMPL = core.call_impl" in updated and "call_impl" not in updated.split("IMPL")[0]
    else:
        assert call_impl in updated.splitlines() and "IMPL = call_impl" in updated


def test_no_move_goes_to_a_home_the_installed_target_lacks(monkeypatch) -> None:
    """Were the installed jax (the target) to lack a move's new home, the name is left and
    reported missing rather than moved to a name that fails there as well."""
    present = rule.first_missing
    monkeypatch.setattr(rule, "first_missing",
                        lambda q, *a: "jax.extend.core.new_jaxpr_eqn" if q == "jax.extend.core.new_jaxpr_eqn" else present(q, *a))
    result = rewrite_source(b"from jax import core\nEQN = core.new_jaxpr_eqn\n", "m.py", ["--select", "removed-jax-api"])
    assert result.updated is None or b"core.new_jaxpr_eqn" in result.updated


def test_a_ref_aval_type_test_names_the_renamed_class_and_a_call_stays_manual(tmp_path) -> None:
    """jax 0.4.6 renamed ShapedArrayRef(shape, dtype) to AbstractRef(inner_aval): a type test
    or an annotation moves as it is (what jax-triton did), a call is made another way."""
    result = _run("shaped_array_ref.py")
    module = _load(result, tmp_path, "shaped_array_ref")
    abstract_ref = _resolve("jax._src.state.AbstractRef")
    ref = abstract_ref(jax.core.ShapedArray((4,), np.int32))
    assert module.get_type_id(ref) == "*i32" and module.get_type_id(jax.core.ShapedArray((2,), np.float32)) == "*fp32"
    assert module.ref_dtype(ref) == np.int32
    manual = [c for c in result.changes if c.safety is Safety.MANUAL]
    assert [c.line for c in manual] == [23]
    assert "ShapedArrayRef(shape, dtype) is AbstractRef(jax.core.ShapedArray(shape, dtype))" in manual[0].message
    assert sum("in this isinstance test" in c.message for c in result.changes) == 1


def test_canonicalize_shape_is_offered_from_jax_private_core_only_as_an_unsafe_fix(tmp_path) -> None:
    """jax.core.canonicalize_shape went (0.4.31) with no successor named; jax._src.core keeps
    the very function: an unsafe fix, a manual finding naming it otherwise."""
    source = b"from jax import core\n\n\ndef spec_shape(shape):\n    return core.canonicalize_shape(shape)\n"
    plain = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert plain.updated in (None, source)
    assert [(c.safety, "it would become jax._src.core.canonicalize_shape" in c.message) for c in plain.changes] == [
        (Safety.MANUAL, True)]
    fixed = rewrite_source(source, "m.py", ["--select", "removed-jax-api", "--unsafe-fixes"])
    assert [c.safety for c in fixed.changes] == [Safety.UNSAFE]
    module = _load(fixed, tmp_path, "spec_shape")
    assert module.spec_shape([2, np.int64(3)]) == (2, 3)
    with pytest.raises(TypeError):
        module.spec_shape([2.5])


def test_a_handler_after_a_try_that_touches_no_jax_is_ordinary_code() -> None:
    """``except ImportError:`` after a try importing the project's own module runs on any jax
    that lacks that module: its jax spelling is migrated. After a try importing jax it is
    the fallback for other jax releases, left alone."""
    own = "try:\n    import my_ext\nexcept ImportError:\n    from jax.config import config\n"
    result = rewrite_source(own.encode(), "m.py", ["--select", "removed-jax-api"])
    assert result.updated.decode() == own.replace("from jax.config import config", "from jax import config")
    for body in ("pass", "x = 1"):
        dead = own.replace("import my_ext", body)
        assert rewrite_source(dead.encode(), "m.py", ["--select", "removed-jax-api"]).updated is not None
    guarded = "try:\n    from jax import config\nexcept ImportError:\n    from jax.config import config\n"
    result = rewrite_source(guarded.encode(), "m.py", ["--select", "removed-jax-api"])
    assert result.updated is None and result.changes == []


def test_the_xla_modules_device_alias_becomes_jax_device() -> None:
    """jax/interpreters/xla.py had ``Device = xc.Device``, the class ``jax.Device`` is;
    jax-sgmc annotated a parameter with it through the moved ``jax.xla`` module."""
    import jax
    from jax._src.lib import xla_client

    assert jax.Device is xla_client.Device
    source = (b"import jax\nfrom jax.interpreters import xla\n\n\n"
              b"def f(d: xla.Device, e: jax.xla.Device):\n    return isinstance(d, xla.Device)\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert result.updated == (b"import jax\n\n\ndef f(d: jax.Device, e: jax.Device):\n"
                              b"    return isinstance(d, jax.Device)\n")
    assert [c.safety for c in result.changes] == [Safety.SAFE] * 3
    again = rewrite_source(result.updated, "m.py", ["--select", "removed-jax-api"])
    assert again.updated in (None, result.updated) and again.changes == []
    # ``from jax import xla`` read only for it: the module import goes (kept for other reads).
    only = b"from jax import xla\n\n\ndef f(d: xla.Device):\n    return d\n"
    result = rewrite_source(only, "m.py", ["--select", "removed-jax-api"])
    assert result.updated == b"from jax import Device\n\n\ndef f(d: Device):\n    return d\n"
    both = only.replace(b"return d", b"return xla.apply_primitive")
    result = rewrite_source(both, "m.py", ["--select", "removed-jax-api"])
    assert b"from jax.interpreters import xla\n" in result.updated and b"def f(d: Device):" in result.updated


def test_the_mlir_bindings_members_are_read_from_their_generated_stubs() -> None:
    """``ir`` is compiled; its stub lists its names, so a member it lacks is reported like
    any missing jax name (the counter, which imports jaxlib, counts it) and every member
    the module has is found there."""
    from jaxlib.mlir import ir

    from codemods.rules._installed_jax import first_missing

    public = [n for n in dir(ir) if not n.startswith("_")]
    assert len(public) > 100
    assert [n for n in public if first_missing(f"jaxlib.mlir.ir.{n}") is not None] == []
    source = (b"from jax.interpreters import mlir\nfrom jaxlib.mlir import ir\n\n"
              b"a = mlir.ir.RankedTensorType.get\nb = ir.IntegerType.get_signless(32)\nc = ir.OpaqueType.isinstance\n"
              b"d = mlir.ir.RankedTensorTyp\n")
    result = rewrite_source(source, "m.py", ["--select", "removed-jax-api"])
    assert [(c.line, c.safety) for c in result.changes] == [(7, Safety.MANUAL)]
    assert "jax.interpreters.mlir.ir.RankedTensorTyp does not exist" in result.changes[0].message
