"""The API rules' rewrites lower on the installed jax and emit the legacy custom call.

Each case takes a rule fixture's *legacy* source, migrates it with every API rule (as
``ccmigrate apply`` would), executes the result as a module, registers its lowering rule
for a fresh primitive and lowers it for CPU. The emitted ``stablehlo.custom_call`` is read
through the MLIR Python API: target, ``api_version``, ``backend_config`` bytes, layouts,
side-effect flag and constant operands are asserted.

Where the legacy source can still run, it is lowered too, with the removed builders
supplied again for the duration (:func:`legacy_builders`): ``mlir.custom_call`` and
``hlo_helpers.custom_call`` of jax 0.4.16-0.7 *are* the private builder jax still ships,
and the ``out_types`` / ``mhlo_helpers`` signatures are thin adapters over it returning
what those jaxlib releases returned. The migrated op must equal the legacy one.
Everything runs in this one process; lowering needs no compiled kernel.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import sys
import types
import zlib

import numpy as np
import pytest

jax = pytest.importorskip("jax")
from jax.extend.core import Primitive  # noqa: E402
from jax.interpreters import mlir  # noqa: E402
from jax.extend.mlir import ir  # noqa: E402
from jax.extend.mlir.dialects import stablehlo  # noqa: E402
from jax._src.interpreters import mlir as private_mlir  # noqa: E402

from tests.helpers import TESTDATA, rewrite_source  # noqa: E402

RULES = "custom-call-api,aval-to-ir-type,core-primitive,stablehlo-custom-call-op,hlo-helpers,backend-config"
_ids = itertools.count()


@functools.lru_cache(maxsize=None)
def migrated_module(rule: str, case: str, rules: str = RULES) -> types.ModuleType:
    path = os.path.join(TESTDATA, "rules", rule, case + ".py")
    with open(path, "rb") as fh:
        source = fh.read()
    result = rewrite_source(source, path, ["--select", rules])
    assert result.error is None, result.error
    assert result.updated is not None, "nothing was migrated"
    module = types.ModuleType(f"migrated_{case}")
    module.__file__ = path
    exec(compile(result.updated, path, "exec"), module.__dict__)
    return module


@functools.lru_cache(maxsize=None)
def legacy_module(rule: str, case: str) -> types.ModuleType:
    path = os.path.join(TESTDATA, "rules", rule, case + ".py")
    module = types.ModuleType(f"legacy_{case}")
    module.__file__ = path
    with open(path, "rb") as fh, legacy_builders():
        exec(compile(fh.read(), path, "exec"), module.__dict__)
    return module


def _builder_kwargs(backend_config, has_side_effect, api_version, operand_output_aliases, operand_layouts, result_layouts, **rest):
    return dict(
        backend_config="" if backend_config is None else backend_config,
        has_side_effect=has_side_effect,
        api_version=api_version,
        operand_output_aliases=operand_output_aliases or None,
        operand_layouts=operand_layouts,
        result_layouts=result_layouts,
        **rest,
    )


def hlo_helpers_custom_call(call_target_name, out_types=None, operands=None, operand_layouts=None, result_layouts=None,
                            backend_config="", has_side_effect=False, api_version=2, operand_output_aliases=None,
                            result_shapes=None, *, result_types=None, **rest):
    """jaxlib.hlo_helpers.custom_call: 0.4.16+ keyword form, or the 0.4.8-0.4.14 ``out_types`` form."""
    kwargs = _builder_kwargs(backend_config, has_side_effect, api_version, operand_output_aliases,
                             operand_layouts, result_layouts, result_shapes=result_shapes, **rest)
    if out_types is None:
        return private_mlir.custom_call(call_target_name, result_types=result_types, operands=operands, **kwargs)
    op = private_mlir.custom_call(call_target_name, result_types=list(out_types), operands=list(operands), **kwargs)
    return list(op.results)


def mhlo_helpers_custom_call(call_target_name, out_types, operands, operand_layouts, result_layouts,
                             backend_config=None, has_side_effect=False, api_version=2, operand_output_aliases=None):
    """jaxlib <= 0.4.1: one value for one result."""
    kwargs = _builder_kwargs(backend_config, has_side_effect, api_version, operand_output_aliases, operand_layouts, result_layouts)
    op = private_mlir.custom_call(call_target_name, result_types=list(out_types), operands=list(operands), **kwargs)
    return op.result if len(out_types) == 1 else list(op.results)


def hlo_const(x):
    """jaxlib.hlo_helpers.hlo_const as jaxlib defined it."""
    return stablehlo.constant(ir.DenseElementsAttr.get(x, type=mlir.dtype_to_ir_type(x.dtype)))


def full_like_aval(*args):
    """jax.interpreters.mlir.full_like_aval as jax defined it: ``(value, aval)``, later ``(ctx, value, aval)``."""
    value, aval = args[-2:]
    zero = mlir.ir_constant(np.array(value, aval.dtype))
    result_type = ir.RankedTensorType.get(aval.shape, mlir.dtype_to_ir_type(np.dtype(aval.dtype)))
    return stablehlo.broadcast_in_dim(result_type, zero, ir.DenseI64ArrayAttr.get([]))


@contextlib.contextmanager
def legacy_builders():
    """The removed custom-call builders and one-argument ``aval_to_ir_type``, back for a while."""
    hlo_helpers = types.ModuleType("jaxlib.hlo_helpers")
    hlo_helpers.custom_call = hlo_helpers_custom_call
    hlo_helpers.hlo_const = hlo_const
    mhlo_helpers = types.ModuleType("jaxlib.mhlo_helpers")
    mhlo_helpers.custom_call = mhlo_helpers_custom_call
    reexport = types.ModuleType("mpi_utils")
    reexport.hlo_custom_call = hlo_helpers_custom_call
    modules = {"jaxlib.hlo_helpers": hlo_helpers, "jaxlib.mhlo_helpers": mhlo_helpers, "mpi_utils": reexport}
    saved_modules = {name: sys.modules.get(name) for name in modules}
    saved_attrs = {name: getattr(mlir, name) for name in ("aval_to_ir_type", "aval_to_ir_types")}
    sys.modules.update(modules)
    mlir.custom_call = private_mlir.custom_call
    mlir.full_like_aval = full_like_aval
    # Before 0.10.1 the type was looked up without a module context; a private cache stands in.
    no_module = types.SimpleNamespace(aval_to_ir_types_cache={})
    mlir.aval_to_ir_type = lambda *args: private_mlir.aval_to_ir_type(*([no_module] if len(args) == 1 else []), *args)
    mlir.aval_to_ir_types = lambda *args: private_mlir.aval_to_ir_types(*([no_module] if len(args) == 1 else []), *args)
    try:
        yield
    finally:
        for name, module in saved_modules.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
        del mlir.custom_call, mlir.full_like_aval
        for name, value in saved_attrs.items():
            setattr(mlir, name, value)


def lower_both(rule: str, case: str, get_rule, inputs, outputs, rules: str = RULES, text: bool = False, **params):
    """Lower the migrated and the legacy module; they must emit the same custom calls.

    With ``text`` the whole lowered modules are compared as text and returned with the calls.
    """
    migrated = lower(get_rule(migrated_module(rule, case, rules)), inputs, outputs, text=text, **params)
    legacy_rule = get_rule(legacy_module(rule, case))
    with legacy_builders():
        legacy = lower(legacy_rule, inputs, outputs, text=text, **params)
    assert migrated == legacy
    return migrated


def lower(rule_fn, inputs, outputs, text: bool = False, **params):
    """Lower one primitive bound to ``inputs`` whose CPU lowering rule is ``rule_fn``."""
    prim = Primitive(f"ccmigrate_case_{next(_ids)}")
    prim.multiple_results = len(outputs) != 1
    avals = [jax.core.ShapedArray(shape, np.dtype(dtype)) for shape, dtype in outputs]
    prim.def_abstract_eval(lambda *args, **kw: avals if prim.multiple_results else avals[0])
    mlir.register_lowering(prim, rule_fn, platform="cpu")
    specs = [jax.ShapeDtypeStruct(shape, np.dtype(dtype)) for shape, dtype in inputs]
    lowered = jax.jit(lambda *xs: prim.bind(*xs, **params)).trace(*specs).lower(lowering_platforms=("cpu",))
    calls = custom_calls(lowered.compiler_ir("stablehlo"))
    return (calls, lowered.as_text().replace(prim.name, "prim")) if text else calls


def custom_calls(module) -> list:
    found = []

    def walk(operation):
        for region in operation.regions:
            for block in region.blocks:
                for op in block.operations:
                    name = op.operation.name
                    if name.endswith(".custom_call"):
                        found.append(read(op.operation))
                    walk(op.operation)

    walk(module.operation)
    return found


def read(op) -> dict:
    attrs = op.attributes

    def layouts(key):
        if key not in attrs:
            return None
        return [list(ir.DenseIntElementsAttr(a)) for a in ir.ArrayAttr(attrs[key])]

    return {
        "op": op.name,
        "target": ir.StringAttr(attrs["call_target_name"]).value,
        "api_version": ir.IntegerAttr(attrs["api_version"]).value if "api_version" in attrs else 1,
        "backend_config": ir.StringAttr(attrs["backend_config"]).value_bytes if "backend_config" in attrs else b"",
        "operand_layouts": layouts("operand_layouts"),
        "result_layouts": layouts("result_layouts"),
        "has_side_effect": ir.BoolAttr(attrs["has_side_effect"]).value if "has_side_effect" in attrs else False,
        "typed_ffi_config": str(attrs["mhlo.backend_config"]) if "mhlo.backend_config" in attrs else None,
        "aliases": str(attrs["output_operand_aliases"]) if "output_operand_aliases" in attrs else None,
        "operands": len(op.operands),
        "constant_operands": [_constant_bytes(v) for v in op.operands],
        "results": len(op.results),
    }


def _constant_bytes(value):
    """The raw data of an operand produced by a ``stablehlo.constant``, else ``None``."""
    owner = value.owner
    if not hasattr(owner, "name") or owner.name != "stablehlo.constant":
        return None
    return bytes(np.array(ir.DenseElementsAttr(owner.attributes["value"])).tobytes())


def test_kepler_extra_operand_keeps_every_layout():
    (call,) = lower_both(
        "custom-call-api", "kepler_extra_operand", lambda m: m._kepler_lowering, [((8,), "float32")] * 2, [((8,), "float32")] * 2
    )
    assert call["target"] == "cpu_kepler_f32"
    assert call["api_version"] == 2
    assert call["backend_config"] == b""
    assert call["operands"] == 3
    assert call["constant_operands"][0] == np.int64(8).tobytes()  # the size the kernel reads first
    assert call["operand_layouts"] == [[], [0], [0]]
    assert call["result_layouts"] == [[0], [0]]


def test_nufft_descriptor_bytes_and_splatted_points():
    (call,) = lower_both(
        "custom-call-api",
        "finufft_gpu_descriptor",
        lambda m: m.lowering,
        [((2, 3), "float32"), ((2, 4), "float32"), ((2, 4), "float32")],
        [((2, 5), "float32")],
        output_shape=(2, 5),
        eps=1e-6,
        build_descriptor=lambda eps, shape: b"\x00desc\xff",
    )
    assert call["target"] == "nufft2d1"
    assert call["api_version"] == 2
    assert call["backend_config"] == b"\x00desc\xff"
    assert call["operand_layouts"] == [[1, 0], [1, 0], [1, 0]]
    assert call["result_layouts"] == [[1, 0]]


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_signature_shim_inlined_with_the_deleted_context(platform):
    """The shim returned ``.results`` of the builder's keyword call; each call of it becomes
    that call, with the context the rule had deleted (registered as ``partial(rule, "cpu")``)."""
    (call,) = lower_both(
        "custom-call-api",
        "signature_shim",
        lambda m: functools.partial(m.spline_lowering, platform),
        [((2, 5), "float32"), ((2, 7), "float32"), ((2, 7), "float32")],
        [((2, 5), "float32")],
        degree=3,
        make_descriptor=lambda degree, *shape: bytes([degree, *shape]),
    )
    assert call["target"] == f"spline2d_{platform}"
    assert call["api_version"] == 2
    if platform == "cpu":
        assert call["backend_config"] == b""
        assert call["operands"] == 4
        assert call["constant_operands"][0] == bytes([3, 2, 5])  # the descriptor the kernel reads first
        assert call["operand_layouts"] == [[0], [1, 0], [1, 0], [1, 0]]
    else:
        assert call["backend_config"] == bytes([3, 2, 5])
        assert call["operands"] == 3
        assert call["operand_layouts"] == [[1, 0], [1, 0], [1, 0]]
    assert call["result_layouts"] == [[1, 0]]
    source = migrated_module("custom-call-api", "signature_shim").__dict__
    assert "custom_call" not in source and "_custom_call" not in source  # the shim and its import are gone


def test_signature_shim_calls_have_their_backend_config_checked_in_the_first_pass():
    """A shim call's backend_config is the builder's: backend-config checks it before the
    call is inlined, so --unsafe-fixes routes it through the helper in one run and a second
    run changes nothing (before, the second run found the inlined call and refused)."""
    path = os.path.join(TESTDATA, "rules", "custom-call-api", "signature_shim.py")
    with open(path, "rb") as fh:
        source = fh.read()
    result = rewrite_source(source, path, ["--unsafe-fixes"])
    assert result.error is None and result.updated is not None
    unsafe = [c for c in result.changes if c.safety.value == "unsafe"]
    assert [c.rule for c in unsafe] == ["backend-config"] and "jaxlib.hlo_helpers.custom_call" in unsafe[0].message
    assert b"backend_config=_ccmigrate_backend_config(descriptor)" in result.updated
    again = rewrite_source(result.updated, path, ["--unsafe-fixes"])
    assert again.error is None and again.updated is None


def test_old_out_types_signature_behind_import_guard():
    (call,) = lower_both(
        "custom-call-api",
        "old_signature_guarded_import",
        lambda m: m._sh_encoding_lowering_cuda,
        [((4, 3), "float32"), ((2,), "float32")],
        [((4, 4), "float32")],
    )
    assert call["target"] == "spherical_harmonics_encoding_cuda_f32"
    assert call["api_version"] == 2
    assert call["backend_config"] == b"\x01\x00\x00\x00"
    assert call["operand_layouts"] == [[1, 0]]
    assert call["result_layouts"] == [[1, 0]]


def test_mpi_reexported_builder_with_constant_operands():
    (call,) = lower_both(
        "custom-call-api",
        "mpi_bcast_reexported",
        lambda m: m.mpi_bcast_xla_encode_cpu,
        [((3,), "float32"), ((), "float32")],
        [((3,), "float32"), ((), "float32")],
        root=0,
        comm_handle=7,
    )
    assert call["target"] == "mpi_bcast"
    assert call["api_version"] == 2
    assert call["has_side_effect"] is True
    assert call["operands"] == 5
    assert call["operand_layouts"] == [[], [0], [], [], []]
    assert call["result_layouts"] == [[0], []]


def test_public_mlir_without_layouts_keeps_none():
    case = ("custom-call-api", "public_mlir_no_layouts")
    (gelu,) = lower_both(*case, lambda m: m._gelu_lowering, [((4,), "float32")], [((4,), "float32")])
    assert (gelu["target"], gelu["api_version"]) == ("vendor_gelu_f32", 3)
    assert gelu["backend_config"] == np.array([3, 1], dtype=np.int32).tobytes()
    assert gelu["operand_layouts"] is None and gelu["result_layouts"] is None
    (norm,) = lower_both(*case, lambda m: m._norm_lowering, [((4,), "float32"), ((), "float32")], [((4,), "float32")])
    assert (norm["target"], norm["api_version"], norm["operands"]) == ("vendor_norm_f32", 2, 2)
    assert norm["operand_layouts"] is None


def test_op_kept_in_variable_still_takes_attributes():
    (call,) = lower_both(
        "custom-call-api",
        "op_kept_in_variable",
        lambda m: m._triton_kernel_lowering,
        [((2, 2), "float32")],
        [((2, 2), "float32")],
        kernel_name="k1",
        serialized_metadata=b"meta",
    )
    assert call["target"] == "triton_kernel_call"
    assert call["api_version"] == 2
    assert call["backend_config"] == b"meta"


def test_mhlo_positional_single_value():
    (call,) = lower_both(
        "custom-call-api", "mhlo_positional_single_value", lambda m: m._cumsum_lowering, [((5,), "float32")], [((5,), "float32")]
    )
    assert (call["target"], call["api_version"]) == ("cpu_cumsum", 2)
    assert call["operand_layouts"] == [[0]] and call["result_layouts"] == [[0]]


def test_static_method_rule_and_serialised_config():
    (call,) = lower_both(
        "custom-call-api",
        "staticmethod_in_class",
        lambda m: m.FFTPrimitive.lowering,
        [((2, 3), "float32")],
        [((2, 3), "float32")],
        fft_type=1,
        opaque=b"\x02",
    )
    assert (call["target"], call["api_version"], call["backend_config"]) == ("pfft3d", 2, b"\x02")
    assert call["operand_layouts"] == [[1, 0]]
    m = migrated_module("custom-call-api", "with_backend_config_rule")
    (call,) = lower(m._scale_lowering, [((3,), "float32")], [((3,), "float32")])
    assert call["api_version"] == 3
    assert call["backend_config"] == b'{"alpha":2.0,"mode":"fast"}'


def test_custom_call_op_typed_attributes_and_mhlo_to_stablehlo():
    m = migrated_module("stablehlo-custom-call-op", "python_values_and_mhlo")
    calls = lower(m._lowering, [((3,), "float32")], [((3,), "float32")], alpha=2.0)
    assert [c["op"] for c in calls] == ["stablehlo.custom_call", "stablehlo.custom_call"]
    first, second = calls
    assert (first["target"], first["api_version"], first["backend_config"]) == ("scale", 2, b'{"alpha": 2.0}')
    assert second["backend_config"] == b"\x00" and second["has_side_effect"] is True
    assert second["api_version"] == 1  # mhlo and stablehlo both default to API_VERSION_ORIGINAL
    m = migrated_module("stablehlo-custom-call-op", "mlir_hlo_attribute")
    (call,) = lower(m._lowering, [((3,), "float32")], [((3,), "float32")])
    assert (call["target"], call["api_version"], call["backend_config"]) == ("my_target", 2, b"")


def test_core_primitive_rewrite_gives_a_working_primitive():
    m = migrated_module("core-primitive", "extending_jax_tutorial")
    assert isinstance(m._kepler_prim, Primitive)
    assert m._kepler_prim.multiple_results


def test_descriptor_constant_from_hlo_const_reaches_the_call():
    (call,) = lower_both(
        "hlo-helpers",
        "finufft_cpu_descriptor",
        lambda m: m.lowering,
        [((2, 3), "float32"), ((2, 4), "float32"), ((2, 4), "float32")],
        [((2, 5), "float32")],
        output_shape=(2, 5),
        build_descriptor=lambda shape: b"\x07\x00\xffdesc",
    )
    assert (call["target"], call["api_version"]) == ("nufft2d1", 2)
    assert call["operands"] == 4
    assert call["constant_operands"][0] == b"\x07\x00\xffdesc"
    assert call["operand_layouts"] == [[0], [1, 0], [1, 0], [1, 0]]
    assert call["result_layouts"] == [[1, 0]]


@pytest.mark.parametrize("use_xla_triton", [True, False])
def test_triton_bridge_typed_and_opaque_paths(use_xla_triton):
    (call,) = lower_both(
        "custom-call-api",
        "triton_bridge",
        lambda m: m.triton_kernel_call_lowering,
        [((4,), "float32"), ((4,), "float32")],
        [((4,), "float32")],
        name="add_kernel",
        grid=(2, 1, 1),
        use_xla_triton=use_xla_triton,
        input_output_aliases=((0, 0),),
    )
    assert call["operand_layouts"] == [[0], [0]] and call["result_layouts"] == [[0]]
    assert call["aliases"] is not None and "operand_index = 0" in call["aliases"]
    if use_xla_triton:
        # A dict config means typed FFI: api_version 1 on the op plus the attribute dictionary.
        assert call["target"] == "__gpu$xla.gpu.triton"
        assert 'name = "add_kernel"' in call["typed_ffi_config"]
    else:
        assert (call["target"], call["api_version"]) == ("triton_kernel_call", 2)
        assert zlib.decompress(call["backend_config"]) == np.asarray((2, 1, 1), dtype=np.int32).tobytes() + b"add_kernel"


def test_rule_with_partial_bound_target_pads_avals_for_the_constant():
    (call,) = lower_both(
        "custom-call-api",
        "partial_bound_target",
        lambda m: functools.partial(m._lowering_rule, "solve_kepler_f32"),
        [((6,), "float32")] * 2,
        [((6,), "float32")] * 2,
    )
    assert call["target"] == "solve_kepler_f32"
    assert call["api_version"] == 2
    assert call["operands"] == 3
    assert call["operand_layouts"] == [[], [0], [0]]
    assert call["result_layouts"] == [[0], [0]]
    assert call["constant_operands"][0] == np.int32(6).tobytes()


def test_results_bound_to_a_name_then_returned_keep_both_result_layouts():
    calls = lower_both(
        "custom-call-api",
        "results_assigned_then_returned",
        lambda m: m._fwd_lowering,
        [((4, 8), "float32"), ((8,), "float32")],
        [((4, 8), "float32"), ((4,), "float32")],
        eps=1e-5,
    )
    (call,) = calls
    assert call["target"] == "rms_forward_affine_mixed_dtype"
    assert call["operand_layouts"] == [[1, 0], [0]]
    assert call["result_layouts"] == [[1, 0], [0]]
    assert call["results"] == 2


def test_old_operands_keyword_lowers_as_inputs():
    module = migrated_module("stablehlo-custom-call-op", "operands_keyword")
    (call,) = lower(module.lowering_rule, [((3,), "float32")], [((3,), "float32"), ((3,), "float32")])
    assert call["op"] == "stablehlo.custom_call"
    assert call["target"] == "two_out"
    assert call["api_version"] == 2
    assert call["operands"] == 1
    assert call["results"] == 1  # one tuple, unpacked by GetTupleElementOp


def test_old_signature_kept_in_a_variable_then_returned():
    (call,) = lower_both(
        "custom-call-api",
        "old_signature_assigned_then_returned",
        lambda m: m._shift_string_lower,
        [((6,), "int8")],
        [((6,), "int8")],
    )
    assert (call["target"], call["api_version"], call["operands"]) == ("string_shift", 2, 2)
    assert call["operand_layouts"] == [[], [0]] and call["result_layouts"] == [[0]]
    assert call["constant_operands"][0] == np.array(6, dtype=np.int32).tobytes()


@pytest.mark.parametrize("outputs,platform", [([((3, 4), "float32")], "cpu"),
                                              ([((3, 4), "float32"), ((4,), "float32")], "gpu")])
def test_old_signature_wrapped_in_a_conditional_return(outputs, platform):
    (call,) = lower_both(
        "custom-call-api", "old_signature_wrapped_return", lambda m: m._torch_call_lowering,
        [((3, 4), "float32"), ((4,), "float32")], outputs, platform=platform, descriptor=b"\x07\x00",
    )
    assert (call["target"], call["api_version"], call["backend_config"]) == (f"{platform}_torch_call_f32", 2, b"\x07\x00")
    assert call["operand_layouts"] == [[1, 0], [0]]
    assert call["results"] == len(outputs)


def test_old_signature_one_value_wrapped_in_a_tuple():
    (call,) = lower_both(
        "custom-call-api", "old_signature_wrapped_return", lambda m: m._hermite_lowering,
        [((5,), "float32")], [((5, 8), "float32")], n_max=8,
    )
    assert (call["target"], call["api_version"]) == ("hermite_recursive", 2)
    assert call["operand_layouts"] == [[0]] and call["result_layouts"] == [[0, 1]]


def test_operands_appended_to_a_list_keep_every_layout():
    (call,) = lower_both(
        "custom-call-api", "operands_appended_to_a_list", lambda m: m._linop_lowering,
        [((2, 3), "float32")], [((2, 3), "float32")], stateid=7, adjoint=1,
    )
    assert call["target"] == "cpu_linop" and call["operands"] == 5
    assert call["operand_layouts"] == [[1, 0], [], [], [], []]
    assert call["constant_operands"][1:] == [np.int64(v).tobytes() for v in (7, 1, 2, 3)]


def test_operand_list_appended_to_after_its_display_keeps_every_layout():
    (call,) = lower_both(
        "custom-call-api", "operands_appended_to_a_list", lambda m: m._scaled_sum_lowering,
        [((4,), "float32"), ((4,), "float32")], [((4,), "float32")], n=3,
    )
    assert call["target"] == "cpu_scaled_sum" and call["operands"] == 3
    assert call["operand_layouts"] == [[0], [0], []]
    assert call["constant_operands"][2] == np.int32(3).tobytes()


def test_operand_list_changed_through_an_alias_keeps_every_layout():
    (call,) = lower_both(
        "custom-call-api", "operands_appended_to_a_list", lambda m: m._aliased_lowering,
        [((4,), "float32"), ((4,), "float32")], [((4,), "float32")], n=5,
    )
    assert call["operands"] == 3 and call["operand_layouts"] == [[0], [0], []]


def test_input_passed_twice_keeps_both_layouts():
    (call,) = lower_both(
        "custom-call-api", "operands_appended_to_a_list", lambda m: m._self_distance_lowering,
        [((5, 3), "float32")], [((5, 5), "float32")],
    )
    assert call["target"] == "cpu_knn" and call["operands"] == 2
    assert call["operand_layouts"] == [[1, 0], [1, 0]]


def test_descriptor_operands_before_the_inputs_keep_every_layout():
    (call,) = lower_both(
        "custom-call-api", "operands_appended_to_a_list", lambda m: m._torch_call_lowering,
        [((4,), "float32"), ((4,), "float32")], [((4,), "float32")], desc=(3, 1),
    )
    assert call["operands"] == 4
    assert call["operand_layouts"] == [[], [], [0], [0]] and call["result_layouts"] == [[0]]
    assert call["constant_operands"][:2] == [np.int64(3).tobytes(), np.int64(1).tobytes()]


def test_constant_concatenated_before_the_inputs_keeps_every_layout():
    (call,) = lower_both(
        "custom-call-api", "operands_constant_plus_inputs", lambda m: m.kepler_lowering,
        [((5,), "float64"), ((5,), "float64")], [((5,), "float64"), ((5,), "float64")],
    )
    assert (call["target"], call["operands"]) == ("cpu_kepler", 3)
    assert call["operand_layouts"] == [[], [0], [0]] and call["result_layouts"] == [[0], [0]]
    assert call["constant_operands"][0] == np.int32(5).tobytes()


def test_builder_chosen_by_nested_guard_lowers_the_same():
    (call,) = lower_both(
        "custom-call-api", "nested_import_guard_with_raise", lambda m: m._chacha20_block_lowering,
        [((3, 4, 4), "uint32")], [((3, 4, 4), "uint32")], num_states=3,
    )
    assert (call["target"], call["api_version"], call["operands"]) == ("cpu_chacha20_block", 2, 2)
    assert call["operand_layouts"] == [[], [2, 1, 0]] and call["result_layouts"] == [[2, 1, 0]]
    assert call["constant_operands"][0] == np.uint32(3).tobytes()


def test_op_kept_in_a_name_whose_results_are_returned_keeps_layouts_and_subset_operands():
    fwd = lower_both(
        "custom-call-api",
        "op_assigned_results_returned",
        lambda m: m._scale_fwd_lowering,
        [((2, 3), "float32"), ((2, 3), "float32")],
        [((2, 3), "float32"), ((2, 3), "float32")],
    )
    assert [(c["target"], c["api_version"], c["backend_config"], c["results"]) for c in fwd] == [
        ("scale_fwd_f32", 2, (6).to_bytes(8, "little"), 2)]
    assert fwd[0]["operand_layouts"] == fwd[0]["result_layouts"] == [[1, 0], [1, 0]]
    # Only three of the rule's five inputs reach the kernel; each keeps its own layout.
    bwd = lower_both(
        "custom-call-api",
        "op_assigned_results_returned",
        lambda m: m._scale_bwd_lowering,
        [((2, 3), "float32"), ((2, 3), "float32"), ((2, 3), "float32"), ((2, 3), "float32"), ((4,), "float32")],
        [((2, 3), "float32"), ((2, 3), "float32")],
    )
    (call,) = bwd
    assert (call["target"], call["operands"], call["backend_config"]) == ("scale_bwd_f32", 3, b"\x00")
    assert call["operand_layouts"] == [[1, 0], [1, 0], [0]]
    assert call["result_layouts"] == [[1, 0], [1, 0]]


def test_workspace_result_keeps_both_result_layouts():
    (call,) = lower_both(
        "custom-call-api", "workspace_result", lambda m: m._solve_lowering, [((3, 4), "float32")], [((3, 4), "float32")]
    )
    assert (call["target"], call["api_version"], call["results"]) == ("cpu_solve", 2, 2)
    assert call["operand_layouts"] == [[1, 0]] and call["result_layouts"] == [[1, 0], [0]]


def test_workspace_results_counted_through_len():
    (call,) = lower_both(
        "custom-call-api", "workspace_result", lambda m: m._scan_lowering, [((5,), "float32")], [((5,), "float32")], width=2
    )
    assert (call["target"], call["results"]) == ("cpu_scan", 3)
    assert call["result_layouts"] == [[0]] * 3


def test_scratch_result_dropped_by_the_rule_keeps_non_default_layouts():
    inputs = [((2, 3, 8), "float32")] * 4
    (call,) = lower_both(
        "custom-call-api", "scratch_result_sliced", lambda m: m.tdma_xla_encode_gpu, inputs, [((2, 3, 8), "float32")]
    )
    assert (call["target"], call["api_version"], call["operands"], call["results"]) == ("tdma_cuda_float", 2, 4, 2)
    assert call["operand_layouts"] == [[1, 0, 2]] * 4 and call["result_layouts"] == [[1, 0, 2]] * 2
    assert call["backend_config"] == np.array([6, 8], dtype=np.int64).tobytes()


def test_out_types_keyword_read_as_results_lowers_as_the_keyword_signature():
    module = migrated_module("custom-call-api", "out_types_keyword_then_results")
    inputs = [((4,), "int32"), ((3,), "int32"), ((3,), "float32"), ((2, 5), "float32")]
    (call,) = lower(module._knn_lowering, inputs, [((2, 5), "float32")], k=5)
    assert (call["target"], call["api_version"], call["operands"], call["results"]) == ("gpu_knn_f32", 2, 3, 1)
    assert call["operand_layouts"] == [[0], [0], [0]] and call["result_layouts"] == [[1, 0]]
    assert call["backend_config"] == np.array([5], dtype=np.int32).tobytes()


def test_full_like_aval_workspace_is_the_same_broadcast_constant():
    rules = RULES + ",removed-jax-api"
    inputs, outputs = [((8,), "float32")], [((8,), "float32")]
    (call,), text = lower_both("removed-jax-api", "full_like_aval_workspace", lambda m: m._pfft_lowering, inputs, outputs,
                               rules=rules, text=True, opaque=b"plan")
    assert (call["target"], call["api_version"], call["operands"], call["backend_config"]) == ("pfft3d", 2, 2, b"plan")
    assert call["operand_layouts"] == [[0], [0]]
    # The scratch operand is a zero scalar broadcast to 1024 bytes, not a 1024-element literal.
    assert "stablehlo.constant dense<0> : tensor<i8>" in text
    assert "dims = [] : (tensor<i8>) -> tensor<1024xi8>" in text
    for name, value in (("_ones_lowering", "1.000000e+00"), ("_bias_lowering", "5.000000e-01")):
        _, text = lower_both("removed-jax-api", "full_like_aval_workspace", lambda m: getattr(m, name), inputs, outputs,
                             rules=rules, text=True)
        assert f"stablehlo.constant dense<{value}> : tensor<f32>" in text and "-> tensor<8xf32>" in text


def test_helper_without_context_takes_the_rules_context():
    """TransformerEngine's custom_caller: the migrated helper, handed each rule's context,
    emits what the legacy helper did, **kwargs (operand_output_aliases) included."""
    case = ("custom-call-api", "helper_custom_caller")
    (fwd,) = lower_both(*case, lambda m: m._layernorm_fwd_lowering, [((2, 3), "float32"), ((3,), "float32")],
                        [((2, 3), "float32")], epsilon=1e-5)
    assert (fwd["target"], fwd["api_version"], fwd["backend_config"]) == ("te_layernorm_forward", 2, b"\x01\x02opaque")
    assert fwd["operand_layouts"] == [[1, 0], [0]] and fwd["result_layouts"] == [[1, 0]]
    assert fwd["aliases"] is None and fwd["has_side_effect"] is False
    (bwd,) = lower_both(*case, lambda m: m._layernorm_bwd_lowering, [((2, 3), "float32")] * 2, [((2, 3), "float32")])
    assert (bwd["target"], bwd["api_version"], bwd["backend_config"]) == ("te_layernorm_backward", 2, b"\x03")
    assert bwd["has_side_effect"] is True
    assert "operand_index = 0" in bwd["aliases"]
    # ``out = custom_caller(...); return [out]``: the list the rule returns, flattened alike.
    (single,) = lower_both(*case, lambda m: m._layernorm_fwd_single_lowering, [((2, 3), "float32"), ((3,), "float32")],
                           [((2, 3), "float32")])
    assert (single["target"], single["operand_layouts"], single["results"]) == ("te_layernorm_forward_single", [[1, 0], [0]], 1)


def test_guarded_helper_branch_the_target_runs_emits_what_the_legacy_branch_did():
    """TransformerEngine's ``if hasattr(mlir, "custom_call"): ... else: custom_call(...)``:
    jax 0.10 has neither builder, so the ``else`` branch is the one that runs; rewritten, it
    emits the custom call the legacy wrapper emitted (through the branch its releases
    took), and the first branch still lowers where mlir.custom_call is back."""
    case = ("custom-call-api", "helper_guarded_branch")
    (call,) = lower_both(*case, lambda m: m._gelu_lowering, [((2, 3), "float32")], [((2, 3), "float32")])
    assert (call["target"], call["api_version"], call["backend_config"]) == ("te_gelu", 2, b"\x01gelu")
    assert call["operand_layouts"] == [[1, 0]] and call["result_layouts"] == [[1, 0]]
    migrated = migrated_module(*case, RULES)
    with legacy_builders():
        kept = lower(migrated._gelu_lowering, [((2, 3), "float32")], [((2, 3), "float32")])
    assert kept == [call]


def test_jaxlib_style_helper_with_an_operand_beyond_the_inputs():
    """``_add_hlo(dtype, a, b)``: three operands (a size constant first) for a rule with two
    inputs; every layout and the constant reach the kernel, from either rule's context."""
    case = ("custom-call-api", "helper_hlo_results")
    for rule, target in (("_add_lowering", "cpu_add_f32"), ("_add_f64_lowering", "cpu_add_f64")):
        (call,) = lower_both(*case, lambda m: getattr(m, rule), [((4,), "float32")] * 2, [((4,), "float32")])
        assert (call["target"], call["api_version"], call["operands"]) == (target, 2, 3)
        assert call["operand_layouts"] == [[], [0], [0]] and call["result_layouts"] == [[0]]
        assert call["constant_operands"][0] == np.int64(4).tobytes()


def test_rebound_vararg_with_prepended_constants_keeps_every_layout():
    # ``ins = [ir_constant(v) for v in info] + list(ins)``: ctx.avals_in alone would pair
    # one layout with three operands and fail verification.
    (call,) = lower_both(
        "custom-call-api", "operands_rebound_with_constants", lambda m: m.taichi_cpu_lowering,
        [((4, 2), "float32")], [((4, 2), "float32")],
    )
    assert (call["target"], call["operands"], call["api_version"]) == ("taichi_kernel_aot_call_cpu", 3, 2)
    assert call["operand_layouts"] == [[0], [0], [1, 0]] and call["result_layouts"] == [[1, 0]]
    assert call["constant_operands"][:2] == [np.array([7, 1, 3], np.uint32).tobytes(), np.array([65, 0], np.uint8).tobytes()]


def test_rebound_vararg_appended_in_place_keeps_every_layout():
    (call,) = lower_both(
        "custom-call-api", "operands_rebound_with_constants", lambda m: functools.partial(m._cpu_rule_appended, n=5),
        [((3,), "float32")], [((3,), "float32")],
    )
    assert (call["target"], call["operands"]) == ("appended_cpu", 2)
    assert call["operand_layouts"] == [[0], []] and call["constant_operands"][1] == np.int32(5).tobytes()


def test_attribute_dict_config_keeps_api_version_1_and_the_dict_after_the_move_to_ffi_lowering():
    # Legacy mlir.custom_call emitted a dict of MLIR attributes as `mhlo.backend_config` on an
    # api_version 1 op; ffi_lowering with the legacy api_version 2 written out emits the same.
    (call,) = lower_both(
        "backend-config", "attributes_through_custom_call_rewrite", lambda m: m._triton_call_lowering,
        [((4,), "float32")], [((4,), "float32")], name="add_kernel", serialized_kernel=b"ptx",
    )
    assert (call["target"], call["api_version"], call["backend_config"]) == ("triton_kernel_call", 1, b"")
    assert call["typed_ffi_config"].startswith('{name = "add_kernel", opaque = "')


@pytest.mark.parametrize("rule", ["_cpu_rule_alias", "_cpu_rule_helper"])
def test_operands_added_through_an_alias_or_a_helper_keep_their_layouts(rule):
    (call,) = lower_both(
        "custom-call-api", "operands_changed_through_alias_or_helper", lambda m: getattr(m, rule),
        [((4,), "float32")], [((4,), "float32")], n=3,
    )
    assert (call["target"], call["api_version"], call["operands"]) == ("appended_cpu", 2, 2)
    assert call["constant_operands"][1] == np.int32(3).tobytes()
    assert call["operand_layouts"] == [[0], []] and call["result_layouts"] == [[0]]


def test_starred_operands_with_explicit_layouts_keep_every_layout():
    (call,) = lower_both(
        "custom-call-api", "starred_operands_explicit_layouts", lambda m: m._nufft1_lowering,
        [((2, 5), "complex64"), ((7,), "float32"), ((7,), "float32")], [((2, 6), "complex64")], eps=1e-6,
    )
    assert call["target"] == "nufft1d" and call["api_version"] == 2
    # The descriptor, the source and both coordinate arrays: four layouts, none dropped.
    assert call["operands"] == 4 and call["operand_layouts"] == [[0], [1, 0], [0], [0]]
    assert call["constant_operands"][0] == np.asarray([1e-6]).tobytes()


def test_a_starred_iterator_is_not_counted_again():
    # ``reversed(points)`` has no len() and would be spent by a second read: manual.

    path = os.path.join(TESTDATA, "rules", "custom-call-api", "starred_operands_explicit_layouts.py")
    with open(path, "rb") as fh:
        source = fh.read().replace(b"points[::-1]", b"reversed(points)")
    result = rewrite_source(source, path, ["--select", "custom-call-api"])
    assert result.error is None and result.updated is None
    assert [c.safety.value for c in result.changes] == ["manual"]


def test_the_first_n_results_of_an_n_result_call_are_all_of_them():
    (call,) = lower_both(
        "custom-call-api", "results_prefix_slice", lambda m: m._mha_fwd_lowering,
        [((4, 8), "float32")] * 2, [((4, 8), "float32"), ((4,), "float32")],
    )
    assert call["target"] == "run_mha_fwd" and call["api_version"] == 2 and call["backend_config"] == b"\x02\x00"
    assert call["results"] == 2 and call["result_layouts"] == [[1, 0], [0]]


def test_results_prefix_of_a_list_changed_after_it_is_built_or_spelt_in_hex():
    path = os.path.join(TESTDATA, "rules", "custom-call-api", "results_prefix_slice.py")
    with open(path, "rb") as fh:
        source = fh.read()
    appended = source.replace(b"    out = custom_call(", b"    types = [q_type, lse_type]\n    types.append(lse_type)\n    out = custom_call(") \
        .replace(b"result_types=[q_type, lse_type],", b"result_types=types,")
    result = rewrite_source(appended, path, ["--select", "custom-call-api"])
    assert result.error is None, result.error
    # Three results now: the layouts are not paired with the two outputs.
    assert b"avals_out=[None] *" in (result.updated or b"") or any(c.safety.value == "manual" for c in result.changes)
    hexed = rewrite_source(source.replace(b"results[:2]", b"results[:0x2]"), path, ["--select", "custom-call-api"])
    assert hexed.error is None and hexed.updated is not None and b"(ctx, q, k)" in hexed.updated


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_a_partial_of_the_builder_emits_what_each_of_its_calls_did(platform):
    (call,) = lower_both(
        "custom-call-api", "partial_builder", lambda m: functools.partial(m._dynamics_lowering, platform=platform),
        [((4, 10), "float32"), ((4, 3), "float32")], [((4, 10), "float32")],
    )
    assert call["target"] == f"{platform}_dynamics_f32" and call["api_version"] == 2
    if platform == "cpu":
        assert call["operands"] == 3 and call["constant_operands"][0] == np.int64(4).tobytes()
        assert call["operand_layouts"] == [[], [1, 0], [1, 0]]
    else:
        assert call["operands"] == 2 and call["backend_config"] == b"\x01\x02"


def test_partial_builder_called_with_operands_only():
    (call,) = lower_both(
        "custom-call-api", "partial_builder", lambda m: m._norm_lowering, [((6,), "float32")], [((6,), "float32")],
    )
    assert (call["target"], call["api_version"], call["operands"]) == ("cpu_norm_f32", 2, 1)
    assert call["operand_layouts"] == [[0]] and call["result_layouts"] == [[0]]


def test_old_signature_value_handed_to_an_op_builder_is_the_one_result():
    """``hlo.ReshapeOp(t, custom_call(..., out_types=[t]))``: the builder took one value,
    what jaxlib <= 0.4.7 returned; the rewrite hands it the op's one result."""
    migrated = migrated_module("custom-call-api", "old_signature_value_into_op_builder")
    calls, text = lower(migrated._scatter_lowering, [((4, 3), "float32"), ((8, 8), "float32")], [((64,), "float32")],
                        text=True)
    (call,) = calls
    assert (call["target"], call["api_version"], call["backend_config"]) == ("gpu_scatter_f32", 2, b"\x01\x02")
    assert call["operand_layouts"] == [[1, 0], [1, 0]] and call["result_layouts"] == [[1, 0]]
    assert call["aliases"] is not None and "output_tuple_indices = []" in call["aliases"]
    assert "stablehlo.reshape" in text and "tensor<64xf32>" in text


SHIM = b'''from jax.interpreters import mlir
from jaxlib.hlo_helpers import custom_call as _cc


def cc(*args, **kwargs):
    try:
        return _cc(*args, **kwargs).results
    except TypeError:
        kwargs["out_types"] = kwargs.pop("result_types")
        return [_cc(*args, **kwargs)]


def _rule(ctx, x):
    return cc("k", result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])], operands=[x])
'''


@pytest.mark.parametrize("tail, reason", [
    # The out_types keyword reached the builder only through the TypeError fallback.
    (b'\n\ndef _old(ctx, x):\n    return cc("k", out_types=[x.type], operands=[x])\n',
     "uses the old out_types signature"),
    # A helper with no context calls it: nothing to pass to ffi_lowering there.
    (b'\n\ndef _helper(x, t):\n    return cc("k", result_types=[t], operands=[x])\n',
     "has no lowering context in reach"),
    (b'\n\n__all__ = ["cc"]\n', "named in a string"),
])
def test_signature_shim_stays_whole_with_its_reason(tail, reason, tmp_path):
    from codemods.rule import Safety

    path = tmp_path / "shim_case.py"  # alone in its folder: no other module may import `cc`
    path.write_bytes(SHIM + tail)
    result = rewrite_source(SHIM + tail, str(path), ["--select", "custom-call-api"])
    assert result.error is None
    assert result.updated is None  # no call of the shim converts while one cannot
    manual = [c.message for c in result.changes if c.safety is Safety.MANUAL]
    calls = [m for m in manual if m.startswith("`cc` forwards to jaxlib.hlo_helpers.custom_call")]
    assert calls and all(reason in m for m in calls)
    inner = [m for m in manual if "called by the signature shim `cc`, which stays since" in m]
    assert len(inner) == 2 and all(reason in m for m in inner)


def test_rule_that_deleted_its_context_lowers_with_it_again():
    (call,) = lower_both("custom-call-api", "deleted_context", lambda m: m._negate_lowering,
                         [((3,), "float32")], [((3,), "float32")])
    assert call["target"] == "negate_f32"
    assert call["api_version"] == 2
    assert call["operand_layouts"] is None and call["result_layouts"] is None


def test_scratch_result_counted_by_its_result_type_display_keeps_every_layout():
    inputs = [((2, 4, 3, 8), "float32")] * 3
    outputs = [((2, 4, 3, 8), "float32"), ((2, 3, 4, 4), "float32")]
    (call,) = lower_both(
        "custom-call-api", "scratch_result_types_counted", lambda m: m._fmha_fwd_lowering, inputs, outputs
    )
    assert (call["target"], call["api_version"], call["operands"], call["results"]) == ("__cudnn$fhmaSoftmax", 2, 3, 3)
    assert call["operand_layouts"] == [[3, 2, 1, 0]] * 3
    assert call["result_layouts"] == [[3, 1, 2, 0], [0], [3, 2, 1, 0]]
    assert call["backend_config"] == b'{"batch": "2", "heads": "3", "is_training": true}'
