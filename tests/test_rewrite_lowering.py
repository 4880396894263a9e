"""Rule fixtures whose rewrite emits or changes a custom call but that no compat case can
hold: fragments without a primitive, rules registered for a GPU, relative imports of the
extension's own modules, several custom calls in one rule. Each fixture is migrated as
``ccmigrate apply`` would (its own flags, every rule), executed as a module, and its
lowering rule lowered for CPU on the installed jax; the custom_call ops are read through
the MLIR Python API (``tests/test_api_rules_lowering.py``) and must be what the kernel
received before the migration.

A fixture importing a sibling module of its package (``from . import gpu_ops``) gets that
module from the test: it is the extension's code, not jax's.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import dataclasses
import os
import struct
import sys
import types

import numpy as np
import pytest

pytest.importorskip("jax")
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: E402
import jax  # noqa: E402
from jax.extend.core import Primitive  # noqa: E402

from tests.helpers import TESTDATA, fixture_args, rewrite_source  # noqa: E402
from tests.test_api_rules_lowering import custom_calls, lower, lower_both  # noqa: E402

F32 = [((3,), "float32")]


@contextlib.contextmanager
def sibling_modules(**modules: types.ModuleType):
    """A package holding ``modules``, for a fixture's ``from . import name``."""
    package = types.ModuleType("ccm_extension")
    package.__path__ = []
    saved = {name: sys.modules.get(name) for name in ["ccm_extension", *(f"ccm_extension.{m}" for m in modules)]}
    sys.modules["ccm_extension"] = package
    for name, module in modules.items():
        setattr(package, name, module)
        sys.modules[f"ccm_extension.{name}"] = module
    try:
        yield package.__name__
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def applied(rule: str, case: str, *, package: str | None = None, leave_out: tuple[str, ...] = ()) -> types.ModuleType:
    """The fixture as ``ccmigrate apply`` leaves it (its flags, else every rule), executed.

    ``leave_out`` names module-level assignments not to execute: statements that need an
    MLIR context at import, which the fixture keeps on purpose.
    """
    path = os.path.join(TESTDATA, "rules", rule, case + ".py")
    with open(path, "rb") as fh:
        source = fh.read()
    result = rewrite_source(source, path, fixture_args(source))
    assert result.error is None, result.error
    assert result.updated is not None, "nothing was migrated"
    tree = ast.parse(result.updated)
    tree.body = [
        s for s in tree.body
        if not (isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id in leave_out for t in s.targets))
    ]
    module = types.ModuleType(f"{package}.{case}" if package else f"applied_{case}")
    module.__file__ = path
    module.__package__ = package or ""
    module.migrated_source = result.updated
    # A dataclass looks its module up in sys.modules while the class is made.
    sys.modules[module.__name__] = module
    try:
        exec(compile(tree, path, "exec"), module.__dict__)
    finally:
        del sys.modules[module.__name__]
    return module


def zero_results(rule_fn):
    """Run a rule whose custom calls have no results, keeping its input as the output."""

    def wrapped(ctx, x, **params):
        rule_fn(ctx, x, **params)
        return [x]

    return wrapped


def summary(call: dict) -> tuple:
    return call["target"], call["api_version"], call["backend_config"]


def test_dict_literal_config_becomes_sorted_compact_json() -> None:
    m = applied("backend-config", "dict_literal")
    (call,) = lower(m._scale_lowering, F32, F32, alpha=2.0)
    assert summary(call) == ("scale_f32", 3, b'{"alpha":2.0,"mode":"fast","sizes":[1,2]}')


def test_config_spread_over_commented_lines_lowers_as_json() -> None:
    m = applied("backend-config", "multiline_comments")
    (call,) = lower(zero_results(m.lower), F32, F32)
    assert summary(call) == ("legacy_target", 2, b'{"alpha":2.0,"mode":"fast"}')
    assert call["results"] == 0


@dataclasses.dataclass(frozen=True)
class _KernelOptions:
    opaque: str = "raw"


def test_values_of_unknown_type_go_through_the_runtime_serialiser() -> None:
    m = applied("backend-config", "unsafe_helper")
    calls = lower(m.lower, F32, F32, config=_KernelOptions())
    assert [summary(c) for c in calls] == [("a", 2, b'{"opaque":"raw"}'), ("b", 2, b"raw")]


def test_names_bound_once_are_serialised_and_lower() -> None:
    m = applied("backend-config", "bound_names")
    calls = lower(m.lower, F32, F32, flag=True)
    assert [summary(c) for c in calls] == [
        ("a", 2, b'{"mode":"fast","tile":128}'),
        ("b", 2, b"[1,2,4]"),
        ("c", 2, b'{"alpha":2.0,"beta":[1,2]}'),
        ("d", 2, b"already a string"),
    ]


def _kernel_pb2() -> types.ModuleType:
    """``kernel_pb2`` with ``message KernelConfig { float alpha = 1; }``, built at run time."""
    proto = descriptor_pb2.FileDescriptorProto(name="ccm_kernel.proto", package="ccm", syntax="proto3")
    message = proto.message_type.add(name="KernelConfig")
    message.field.add(name="alpha", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT,
                      label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    module = types.ModuleType("kernel_pb2")
    module.KernelConfig = message_factory.GetMessageClass(pool.FindMessageTypeByName("ccm.KernelConfig"))
    return module


def test_dataclass_and_protobuf_configs_reach_the_kernel_as_json_and_message_bytes() -> None:
    with sibling_modules(kernel_pb2=_kernel_pb2()) as package:
        m = applied("backend-config", "dataclass_and_proto", package=package)
        calls = lower(m.lower, F32, F32, tile=64)
    assert [summary(c) for c in calls] == [
        ("a", 2, b'{"mode":"fast","tile":64}'),
        ("b", 2, b'{"mode":"fast","tile":128}'),
        ("c", 2, b"\x0d" + struct.pack("<f", 2.0)),  # field 1, fixed32
        ("d", 2, bytes.fromhex("11000000000000f03f")),  # struct_pb2.Value: field 2, double 1.0
    ]


def test_guarded_builder_import_with_a_dict_config() -> None:
    m = applied("backend-config", "guarded_import")
    (call,) = lower(m.lowering, F32, F32, n=3)
    assert summary(call) == ("scale", 2, b'{"mode":"fast","n":3}')
    assert call["operand_layouts"] is None and call["result_layouts"] is None


def test_old_positional_signature_with_a_dict_config() -> None:
    m = applied("backend-config", "old_positional")
    (call,) = lower(m.lower, [((2, 3), "float32")], [((2, 3), "float32")], layout=(0, 1))
    assert summary(call) == ("old_kernel", 2, b'{"n":4}')
    assert call["operand_layouts"] == [[0, 1]] and call["result_layouts"] == [[0, 1]]


def test_only_the_call_that_means_jax_builder_is_serialised() -> None:
    m = applied("backend-config", "shadowed_import")
    (call,) = lower(zero_results(m.lower), F32, F32)
    assert summary(call) == ("real", 2, b'{"a":1}')
    assert call["results"] == 0


def test_tuple_and_numeric_key_configs_lower_as_json() -> None:
    # Each rule of the fixture also holds a config json.dumps cannot take (left or unsafe,
    # by design), so the calls serialised safely are lowered in one rule of their own.
    m = applied("backend-config", "lossy_tuple")
    calls = [
        stmt.value
        for function in ast.parse(m.migrated_source).body if isinstance(function, ast.FunctionDef)
        for stmt in function.body
        if isinstance(stmt.value, ast.Call) and ast.literal_eval(stmt.value.args[0]) in ("a", "b", "g")
    ]
    rule = ast.parse("def safe_calls(ctx, x):\n    pass")
    rule.body[0].body = [ast.Expr(call) for call in calls]
    exec(compile(ast.fix_missing_locations(rule), m.__file__, "exec"), m.__dict__)
    emitted = lower(zero_results(m.safe_calls), F32, F32)
    assert [summary(c) for c in emitted] == [
        ("a", 2, b"[1,2]"),
        ("b", 2, b'{"1":"one","2":"two"}'),
        ("g", 2, b'{"-1":"neg","2":"pos"}'),
    ]


def test_typed_ffi_plain_values_become_attributes() -> None:
    # The module-level call needs an MLIR context at import; the fixture keeps it as is.
    m = applied("backend-config", "typed_ffi", leave_out=("rule",))
    calls = lower(m.lower, F32, F32)
    # Typed FFI is the attribute dictionary on an op of api_version 1 (jax's encoding of 4);
    # a Python float is an f64 attribute, an int an i64.
    assert [(c["target"], c["api_version"], c["typed_ffi_config"]) for c in calls] == [
        ("a", 1, '{alpha = 2.000000e+00 : f64, mode = "fast"}'),
        ("b", 1, "{alpha = 2.000000e+00 : f64, n = 3 : i64}"),
    ]


def test_api_version_enum_becomes_its_number() -> None:
    m = applied("custom-call-api", "api_version_enum")
    (call,) = lower(m._rasterize_lowering, [((2, 3), "float32")], [((2, 3), "float32")])
    assert summary(call) == ("rasterize_triangles", 2, b"")
    assert call["operand_layouts"] == [[1, 0]] and call["result_layouts"] == [[1, 0]]
    (call,) = lower(m._typed_lowering, F32, F32)
    assert (call["target"], call["api_version"], call["typed_ffi_config"]) == ("typed_kernel", 1, "{}")
    assert call["operand_layouts"] == [[0]] and call["result_layouts"] == [[0]]


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_target_chosen_by_a_match_statement(platform) -> None:
    (call,) = lower_both("custom-call-api", "match_statement", lambda m: m._lowering, F32, F32, platform=platform)
    assert summary(call) == (f"scale_{platform}", 2, b"")
    assert call["operand_layouts"] is None and call["result_layouts"] is None


def test_python_scalar_constants_reach_the_kernel_as_64_bit_numpy_values() -> None:
    m = applied("ir-constant", "python_scalars")
    (call,) = lower(m._sph_lowering, [((2, 3), "float32")], [((2, 3), "float32")], l_max=3, normalized=1)
    assert summary(call) == ("cpu_sph", 2, b"")
    assert call["operand_layouts"] == [[1, 0], [], [], []] and call["result_layouts"] == [[1, 0]]
    assert call["constant_operands"][1:] == [np.int64(3).tobytes(), np.bool_(True).tobytes(), np.int64(3).tobytes()]


def test_constants_given_by_keyword_reach_the_kernel_as_64_bit_numpy_values() -> None:
    m = applied("ir-constant", "keyword_value")
    (call,) = lower(m._scaled_lowering, [((3,), "float32")], [((3,), "float32")], n=4, scale=1.0)
    assert summary(call) == ("cpu_scaled", 2, b"")
    assert call["constant_operands"][1:] == [np.int64(4).tobytes(), np.float64(2.5).tobytes()]


def test_xla_ops_opaque_from_the_extension_reaches_the_kernel() -> None:
    gpu_ops = types.ModuleType("gpu_ops")
    gpu_ops.scale_config = lambda n: struct.pack("<q", n)
    with sibling_modules(gpu_ops=gpu_ops) as package:
        m = applied("backend-config", "xla_ops_opaque", package=package)
    # Registered for the GPU; lowered here for the CPU, which emits the same op.
    (call,) = lower(m._scale_translation, [((5,), "float32")], [((5,), "float32")], n=5)
    assert summary(call) == ("scale_f32", 1, struct.pack("<q", 5))
    assert call["operand_layouts"] == [[0]] and call["result_layouts"] == [[0]]


def test_translation_rule_beside_an_mlir_lowering_is_rewritten_where_it_stands() -> None:
    ops = types.ModuleType("_ops")
    ops.lfilter_p = Primitive("lfilter")
    ops.lfilter_lowering = lambda ctx, *args: args[-1:]
    with sibling_modules(_ops=ops) as package:
        m = applied("xla-translation-rule", "also_mlir_lowering", package=package)
    (call,) = lower(m._lfilter_translation, [((16,), "complex64")] * 3, [((16,), "complex64")])
    assert summary(call) == ("lfilter", 1, b"")
    assert call["operand_layouts"] == [[0], [0], [0]] and call["result_layouts"] == [[0]]


def test_module_alias_goes_once_the_enum_and_registrations_are_rewritten() -> None:
    m = applied("xla-client-import", "module_alias_rewritten")
    (call,) = lower(m._lowering, F32, F32)
    assert summary(call) == ("kernel", 2, b"")
    assert call["operand_layouts"] is None and call["result_layouts"] is None


def test_translation_rule_registered_through_from_jax_import_xla() -> None:
    m = applied("xla-translation-rule", "from_jax_import_xla")
    (call,) = lower(m._solve_translation, [((4,), "float32")], [((4,), "float32")])
    assert summary(call) == ("solve_f32", 1, b"")
    assert call["operand_layouts"] == [[0]] and call["result_layouts"] == [[0]]


def test_module_without_its_unused_xla_client_aliases_imports_and_lowers() -> None:
    m = applied("xla-translation-rule", "unused_client_alias")
    (call,) = lower(m.lowering, F32, F32)
    assert summary(call) == ("gpu_fft", 1, b"")


def test_module_that_kept_the_builder_imports_imports_and_lowers() -> None:
    m = applied("custom-call-api", "unused_import")
    (call,) = lower(m.lowering, F32, F32)
    assert (call["target"], call["api_version"], call["typed_ffi_config"]) == ("f", 1, "{}")  # ffi_lowering's 4


def test_lower_fun_reached_through_local_imports_lowers_its_implementation_inline() -> None:
    import jax

    m = applied("xla-translation-rule", "lower_fun_local_import")
    m.register()
    for prim in (m.axpy_p, m.scale_p):
        prim.def_abstract_eval(lambda *avals, **params: avals[-1])
    spec = jax.ShapeDtypeStruct((3,), np.float32)
    lowered = jax.jit(lambda a, x, y: m.scale_p.bind(m.axpy_p.bind(a, x, y))).trace(spec, spec, spec)
    module = lowered.lower(lowering_platforms=("cpu",)).compiler_ir("stablehlo")
    found = []

    def walk(operation):
        for region in operation.regions:
            for block in region.blocks:
                for op in block.operations:
                    found.append(op.operation.name)
                    walk(op.operation)

    walk(module.operation)
    arithmetic = [name for name in found if name in ("stablehlo.multiply", "stablehlo.add")]
    # a * x + y, then 2 * (that): traced from the implementations, no custom call.
    assert arithmetic == ["stablehlo.multiply", "stablehlo.add", "stablehlo.multiply"]
    assert not any(name.endswith("custom_call") for name in found)


def returned_arguments(fn, *specs) -> list[int]:
    """Which arguments of ``fn``'s lowered main function it returns, in order; the body
    must be that return alone (nothing computed, no custom call)."""
    import jax
    from jax.interpreters.mlir import ir

    module = jax.jit(fn).trace(*specs).lower(lowering_platforms=("cpu",)).compiler_ir("stablehlo")
    (main,) = [op for op in module.body.operations if op.sym_name.value == "main"]
    (ret,) = list(main.regions[0].blocks[0].operations)
    assert ret.operation.name == "func.return"
    return [ir.BlockArgument(v).arg_number for v in ret.operands]


def test_tuple_of_the_operands_lowers_to_the_operands_themselves() -> None:
    import jax

    m = applied("xla-translation-rule", "tuple_passthrough")
    assert b"xla_client" not in m.migrated_source
    x, y = jax.ShapeDtypeStruct((3,), np.float32), jax.ShapeDtypeStruct((2, 2), np.int32)
    for bind in (lambda a, b: m.tie_all_p.bind(a, b), lambda a, b: m.tie_pair_p.bind(a, b)):
        assert returned_arguments(bind, x, y) == [0, 1]
    out = jax.jit(lambda a, b: m.tie_all_p.bind(a * 2, b))(np.ones(3, np.float32), np.arange(4).reshape(2, 2))
    assert np.array_equal(out[0], np.full(3, 2.0)) and np.array_equal(out[1], np.arange(4).reshape(2, 2))


def test_rules_that_build_nothing_lower_to_the_operands_they_hand_back() -> None:
    import jax

    m = applied("xla-translation-rule", "builder_free_tags")
    assert b"jax.interpreters.xla" not in m.migrated_source
    spec = jax.ShapeDtypeStruct((4,), np.float32)
    value_tag = m.ValueTag("value_tag", 2)
    assert returned_arguments(lambda a, b, c: value_tag.bind(a, b, c), spec, spec, spec) == [0, 1]
    named = m.NamedTag("named_tag", ["w", "s"])
    named_bind = lambda a, b, c: named.bind(a, b, c, names=("w", "b", "s"))  # noqa: E731
    assert returned_arguments(named_bind, spec, spec, spec) == [0, 2]


def test_rules_behind_the_packages_forwarding_decorators_lower_through_them(capsys) -> None:
    import runpy

    folder = os.path.join(TESTDATA, "rules", "xla-translation-rule", "decorated_package")
    decorators = types.ModuleType("decorators")
    decorators.__dict__.update(runpy.run_path(os.path.join(folder, "decorators.py")))
    with sibling_modules(decorators=decorators) as package:
        m = applied("xla-translation-rule", "decorated_package/ops", package=package)
    assert b"@rule_cpu\ndef _scale_cpu(ctx, x, *, n):" in m.migrated_source
    assert b"@rule_gpu\ndef _scale_gpu(ctx, x, *, n):" in m.migrated_source
    # Through the wrapper the decorator returned: the same operands, layouts and opaque bytes.
    (call,) = lower(m._scale_cpu, [((4,), "float32")], [((4,), "float32")], n=4)
    assert summary(call) == ("scale_f32", 1, np.int64(4).tobytes())
    assert call["operand_layouts"] == [[0]] and call["result_layouts"] == [[0]]
    (call,) = lower(m._scale_gpu, [((4,), "float32")], [((4,), "float32")], n=4)
    assert summary(call) == ("scale_f32_gpu", 1, b"")
    # jax's tutorial tracer, imported from the package's own module, prints and passes on.
    assert b'@trace("offset_translation")\ndef _offset_cpu(ctx, x):' in m.migrated_source
    (call,) = lower(m._offset_cpu, [((3,), "float32")], [((3,), "float32")])
    assert summary(call) == ("offset_f32", 1, b"")
    assert "call offset_translation(" in capsys.readouterr().out


def test_descriptor_builder_result_is_passed_on_as_bytes_without_a_finding() -> None:
    path = os.path.join(TESTDATA, "rules", "backend-config", "descriptor_builder_passes.py")
    with open(path, "rb") as fh:
        changes = rewrite_source(fh.read(), path, ["--select", "backend-config"]).changes
    # Only the module's own builder, whose dict result is in view, is questioned.
    assert [(c.line, c.safety.value) for c in changes] == [(34, "unsafe")]
    sp_ops = types.ModuleType("sp_ops")
    sp_ops.build_csr_and_dense_descriptor = lambda n, k: struct.pack("<qq", n, k)
    sp_ops.scale_opaque = lambda s: struct.pack("<d", s)
    with sibling_modules(sp_ops=sp_ops) as package:
        m = applied("backend-config", "descriptor_builder_passes", package=package)
    (call,) = lower(m._lowering_cuda, [((6,), "float32"), ((6, 6), "float32")], [((6,), "float32")])
    assert summary(call) == ("spp_csr_matmul_cuda", 2, struct.pack("<qq", 6, 3))
    (call,) = lower(m._lowering_cpu, [((2,), "float32")], [((2,), "float32")])
    assert summary(call) == ("cpu_scale", 2, struct.pack("<d", 2))


def test_mhlo_op_moves_to_stablehlo_with_its_operand_aliases() -> None:
    m = applied("stablehlo-custom-call-op", "mhlo_op_with_output_aliases")
    assert b"mhlo" not in m.migrated_source.replace(b"mhlo.CustomCallOp", b"")[m.migrated_source.index(b"import jaxlib"):]
    (call,) = lower(m.triton_call_lowering, F32, F32, call_name="add_kernel", input_output_aliases=((0, 0),))
    assert (call["op"], call["target"], call["api_version"], call["backend_config"]) == (
        "stablehlo.custom_call", "add_kernel", 1, b"")
    assert call["aliases"] == "[#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]"


def test_builder_shapes_held_in_a_tuple_become_avals_read_by_dtype_and_shape() -> None:
    m = applied("xla-translation-rule", "get_shapes_in_a_tuple")
    f64 = [((2, 3), "float64")]
    with jax.enable_x64(True):
        (call,) = lower(m._quad_solution_vector_translation, f64 * 2, f64)
        assert summary(call) == ("quad_solution_vector", 1, b"")
        assert call["operand_layouts"] == [[1, 0], [1, 0]] and call["result_layouts"] == [[1, 0]]
        with pytest.raises(ValueError, match="float64 precision is required"):
            lower(m._quad_solution_vector_translation, F32 * 2, F32)


def test_comprehension_variable_named_like_the_shape_local_does_not_block_the_rule() -> None:
    m = applied("xla-translation-rule", "comprehension_variable_shadows_shape")
    f64 = [((4,), "float64")]
    with jax.enable_x64(True):
        (call,) = lower(m.kepler_translation_rule, f64 * 2, f64 * 2)
    assert summary(call) == ("solve_kepler", 1, b"")
    assert call["operands"] == 3 and call["constant_operands"][0] == np.int32(4).tobytes()
    assert call["operand_layouts"] == [[], [0], [0]] and call["result_layouts"] == [[0], [0]]


def test_row_major_shapes_from_a_helper_lower_with_the_default_layouts() -> None:
    m = applied("xla-translation-rule", "row_major_shape_helper")
    specs = (((2, 3), np.dtype("float32")),)
    _, rule = m.make_step("env_step", b"handle", specs, specs)
    (call,) = lower(functools.partial(rule, platform="cpu"), [((2, 3), "float32")], [((2, 3), "float32")])
    assert summary(call) == ("env_step_cpu", 1, b"handle") and call["has_side_effect"]
    # What _shape_with_layout gave: row-major for the array, () for a scalar.
    assert call["operand_layouts"] == [[1, 0]] and call["result_layouts"] == [[1, 0]]
    (scalar,) = lower(functools.partial(rule, platform="cpu"), [((), "float32")], [((), "float32")])
    assert scalar["operand_layouts"] == [[]] and scalar["result_layouts"] == [[]]


def test_row_major_shapes_from_a_static_method_lower_through_the_instance_registration() -> None:
    m = applied("xla-translation-rule", "row_major_method_helper")
    assert "_row_major" not in m.migrated_source.decode() and "xla_client" not in m.migrated_source.decode()
    sim = m.Sim("a", (2, 3))
    handle, obs = jax.core.ShapedArray((4,), np.uint8), jax.core.ShapedArray((2, 3), np.float32)
    sim._push_p.def_abstract_eval(lambda *args: handle)
    sim._pull_p.def_abstract_eval(lambda h: [handle, obs])
    h = jax.ShapeDtypeStruct((4,), np.uint8)
    action = jax.ShapeDtypeStruct((2, 3), np.float32)
    # The registration the migrated _setup made, used as jax uses it.
    lowered = jax.jit(lambda h, a: sim._pull_p.bind(sim._push_p.bind(h, a))).trace(h, action).lower(lowering_platforms=("cpu",))
    push, pull = custom_calls(lowered.compiler_ir("stablehlo"))
    assert summary(push) == ("sim_a_cpu_push", 1, b"") and push["has_side_effect"]
    assert push["operand_layouts"] == [[0], [1, 0]] and push["result_layouts"] == [[0]]
    assert summary(pull) == ("sim_a_cpu_pull", 1, b"") and pull["has_side_effect"]
    # A tuple of as many shapes as the specs give, two here: two results, XLA's tuple.
    assert pull["operand_layouts"] == [[0]] and pull["result_layouts"] == [[0], [1, 0]]


def test_a_scratch_result_stays_a_result_of_the_custom_call() -> None:
    m = applied("xla-translation-rule", "scratch_result_unpacked")
    arrays = [((3, 4), "float32")] * 4
    (call,), text = lower(m.tridiag_cpu, arrays, [((3, 4), "float32")], text=True)
    assert summary(call) == ("tridiag_f32", 1, b"")
    # The four arrays, then the number of systems and the stride as 64-bit scalars.
    assert call["operands"] == 6 and call["constant_operands"][4:] == [np.int64(3).tobytes(), np.int64(4).tobytes()]
    # Both buffers the kernel writes, as before: the solution and the scratch row.
    assert call["results"] == 2 and call["operand_layouts"] is None
    assert "-> (tensor<3x4xf32>, tensor<4xf32>)" in text
    (gpu,) = lower(m.tridiag_gpu, arrays, [((3, 4), "float32")])
    assert summary(gpu) == ("tridiag_cuda", 1, b"\x01") and gpu["results"] == 2
    assert gpu["operand_layouts"] == [[0, 1]] * 4 and gpu["result_layouts"] == [[0, 1]] * 2


def test_a_constant_reusing_the_name_of_the_shape_tuple_lowers_as_the_first_operand() -> None:
    m = applied("xla-translation-rule", "constant_reuses_shape_name")
    states = [((4, 32), "float32")] * 2
    (call,) = lower(m._gen_spikes_translation, states, [((4, 9), "uint32")], max_num_spikes=8)
    assert summary(call) == ("gen_spike_vector_cpu", 1, b"")
    assert call["operands"] == 3 and call["constant_operands"][0] == np.asarray((4, 32, 8), np.uint32).tobytes()
    assert call["operand_layouts"] == [[0], [1, 0], [1, 0]] and call["result_layouts"] == [[1, 0]]


def test_a_keyword_the_registration_binds_is_no_operand() -> None:
    m = applied("xla-translation-rule", "partial_keyword_platform")
    f64 = [((6,), "float64")]
    with jax.enable_x64(True):
        (call,) = lower(functools.partial(m._roots_translation, platform="cpu"), f64, f64, itmax=30)
    assert summary(call) == ("ehrlich_aberth_cpu", 1, b"")
    assert call["operands"] == 2 and call["constant_operands"][0] == np.int64(30).tobytes()
    assert call["operand_layouts"] == [[], [0]] and call["result_layouts"] == [[0]]


_PYTHON_KERNELS = r'''
import os, sys
os.environ["JAX_PLATFORMS"] = "cpu"
import jax, jax.numpy as jnp, numpy as np

path = sys.argv[1]
namespace = {"__name__": "python_kernel_bridge"}
exec(compile(open(path).read(), path, "exec"), namespace)
bridge = namespace["python_to_jax"]


def double(outputs, inputs):
    outputs[0][...] = inputs[0] * 2


def split(outputs, inputs):
    outputs[0][...] = inputs[0] + inputs[1]
    outputs[1][...] = inputs[1].sum()


one = bridge("double", double, lambda x: [jax.core.ShapedArray(x.shape, x.dtype)])
two = bridge("split", split, lambda x, y: [jax.core.ShapedArray(x.shape, x.dtype), jax.core.ShapedArray((), y.dtype)])
x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
y = jnp.ones((2, 3), jnp.float32)
(doubled,) = jax.jit(one)(x)
np.testing.assert_array_equal(np.asarray(doubled), np.arange(6, dtype=np.float32).reshape(2, 3) * 2)
added, total = jax.jit(two)(x, y)
np.testing.assert_array_equal(np.asarray(added), np.asarray(x) + 1)
assert float(total) == 6.0
text = jax.jit(one).lower(x).as_text()
assert "-> tuple<tensor<2x3xf32>>" in text, text
print("the kernels wrote their results")
'''


def test_a_tuple_result_stays_a_tuple_so_the_cpu_kernel_finds_its_outputs() -> None:
    """A bridge whose custom call always had a tuple result (jambax, numba4jax): a CPU
    kernel of XLA's legacy signature reaches its outputs through the tuple's table of
    pointers, a one-result tuple included. The migrated bridge registers C callbacks of
    that signature, runs Python kernels of one and of two results under jit and gets what
    they wrote (given a plain single result instead, the kernel writes through the data
    as if it were that table: garbage, or a crash, hence the subprocess)."""
    import subprocess
    import sys

    path = os.path.join(TESTDATA, "rules", "xla-translation-rule", "python_kernel_bridge.expected.py")
    done = subprocess.run([sys.executable, "-c", _PYTHON_KERNELS, path], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "the kernels wrote their results", done.stderr[-3000:]
