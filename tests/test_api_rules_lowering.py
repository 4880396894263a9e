"""The API rules' rewrites lower on the installed jax and emit the legacy custom call.

Each case takes a rule fixture's *legacy* source, migrates it with every API rule (as
``ccmigrate apply`` would), executes the result as a module, registers its lowering rule
for a fresh primitive and lowers it for CPU. The emitted ``stablehlo.custom_call`` is read
through the MLIR Python API and compared with what the legacy builder produced: target,
``api_version``, ``backend_config`` bytes, layouts and side-effect flag. Everything runs
in this one process; lowering needs no compiled kernel.
"""

from __future__ import annotations

import itertools
import os
import types

import numpy as np
import pytest

jax = pytest.importorskip("jax")
from jax.extend.core import Primitive  # noqa: E402
from jax.interpreters import mlir  # noqa: E402
from jax.extend.mlir import ir  # noqa: E402

from tests.helpers import TESTDATA, rewrite_source  # noqa: E402

RULES = "custom-call-api,aval-to-ir-type,core-primitive,stablehlo-custom-call-op,hlo-helpers,backend-config"
_ids = itertools.count()


def migrated_module(rule: str, case: str) -> types.ModuleType:
    path = os.path.join(TESTDATA, "rules", rule, case + ".py")
    with open(path, "rb") as fh:
        source = fh.read()
    result = rewrite_source(source, path, ["--select", RULES])
    assert result.error is None, result.error
    assert result.updated is not None, "nothing was migrated"
    module = types.ModuleType(f"migrated_{case}")
    module.__file__ = path
    exec(compile(result.updated, path, "exec"), module.__dict__)
    return module


def lower(rule_fn, inputs, outputs, **params):
    """Lower one primitive bound to ``inputs`` whose CPU lowering rule is ``rule_fn``."""
    prim = Primitive(f"ccmigrate_case_{next(_ids)}")
    prim.multiple_results = len(outputs) != 1
    avals = [jax.core.ShapedArray(shape, np.dtype(dtype)) for shape, dtype in outputs]
    prim.def_abstract_eval(lambda *args, **kw: avals if prim.multiple_results else avals[0])
    mlir.register_lowering(prim, rule_fn, platform="cpu")
    specs = [jax.ShapeDtypeStruct(shape, np.dtype(dtype)) for shape, dtype in inputs]
    lowered = jax.jit(lambda *xs: prim.bind(*xs, **params)).trace(*specs).lower(lowering_platforms=("cpu",))
    return custom_calls(lowered.compiler_ir("stablehlo"))


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
        "backend_config": ir.StringAttr(attrs["backend_config"]).value_bytes,
        "operand_layouts": layouts("operand_layouts"),
        "result_layouts": layouts("result_layouts"),
        "has_side_effect": ir.BoolAttr(attrs["has_side_effect"]).value if "has_side_effect" in attrs else False,
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
    m = migrated_module("custom-call-api", "kepler_extra_operand")
    (call,) = lower(m._kepler_lowering, [((8,), "float32")] * 2, [((8,), "float32")] * 2)
    assert call["target"] == "cpu_kepler_f32"
    assert call["api_version"] == 2
    assert call["backend_config"] == b""
    assert call["operands"] == 3
    assert call["constant_operands"][0] == np.int64(8).tobytes()  # the size the kernel reads first
    assert call["operand_layouts"] == [[], [0], [0]]
    assert call["result_layouts"] == [[0], [0]]


def test_nufft_descriptor_bytes_and_splatted_points():
    m = migrated_module("custom-call-api", "finufft_gpu_descriptor")
    (call,) = lower(
        m.lowering,
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


def test_old_out_types_signature_behind_import_guard():
    m = migrated_module("custom-call-api", "old_signature_guarded_import")
    (call,) = lower(m._sh_encoding_lowering_cuda, [((4, 3), "float32"), ((2,), "float32")], [((4, 4), "float32")])
    assert call["target"] == "spherical_harmonics_encoding_cuda_f32"
    assert call["api_version"] == 2
    assert call["backend_config"] == b"\x01\x00\x00\x00"
    assert call["operand_layouts"] == [[1, 0]]
    assert call["result_layouts"] == [[1, 0]]


def test_mpi_reexported_builder_with_constant_operands():
    m = migrated_module("custom-call-api", "mpi_bcast_reexported")
    (call,) = lower(
        m.mpi_bcast_xla_encode_cpu,
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
    m = migrated_module("custom-call-api", "public_mlir_no_layouts")
    (gelu,) = lower(m._gelu_lowering, [((4,), "float32")], [((4,), "float32")])
    assert (gelu["target"], gelu["api_version"]) == ("vendor_gelu_f32", 3)
    assert gelu["backend_config"] == np.array([3, 1], dtype=np.int32).tobytes()
    assert gelu["operand_layouts"] is None and gelu["result_layouts"] is None
    (norm,) = lower(m._norm_lowering, [((4,), "float32"), ((), "float32")], [((4,), "float32")])
    assert (norm["target"], norm["api_version"], norm["operands"]) == ("vendor_norm_f32", 2, 2)
    assert norm["operand_layouts"] is None


def test_op_kept_in_variable_still_takes_attributes():
    m = migrated_module("custom-call-api", "op_kept_in_variable")
    (call,) = lower(
        m._triton_kernel_lowering, [((2, 2), "float32")], [((2, 2), "float32")], kernel_name="k1", serialized_metadata=b"meta"
    )
    assert call["target"] == "triton_kernel_call"
    assert call["api_version"] == 2
    assert call["backend_config"] == b"meta"


def test_mhlo_positional_single_value():
    m = migrated_module("custom-call-api", "mhlo_positional_single_value")
    (call,) = lower(m._cumsum_lowering, [((5,), "float32")], [((5,), "float32")])
    assert (call["target"], call["api_version"]) == ("cpu_cumsum", 2)
    assert call["operand_layouts"] == [[0]] and call["result_layouts"] == [[0]]


def test_static_method_rule_and_serialised_config():
    m = migrated_module("custom-call-api", "staticmethod_in_class")
    (call,) = lower(m.FFTPrimitive.lowering, [((2, 3), "float32")], [((2, 3), "float32")], fft_type=1, opaque=b"\x02")
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
    m = migrated_module("hlo-helpers", "finufft_cpu_descriptor")
    (call,) = lower(
        m.lowering,
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
