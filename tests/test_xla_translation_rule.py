"""xla-translation-rule beyond what the fixtures compare: what a rewritten stub rule does
when jax lowers it, and the reasons given for rules left to the user."""

from __future__ import annotations

import os

import numpy as np
import pytest

from codemods.rule import Safety
from tests.compat.custom_calls import custom_calls, load_module, lower_entry
from tests.helpers import TESTDATA, options_from, rewrite_source

FOLDER = os.path.join(TESTDATA, "rules", "xla-translation-rule")


def _rewrite(name: str, *args: str):
    path = os.path.join(FOLDER, name)
    with open(path, "rb") as fh:
        source = fh.read()
    return rewrite_source(source, path, ["--select", "xla-translation-rule", *args])


def test_stub_rule_raises_its_own_error_when_lowered(tmp_path) -> None:
    result = _rewrite("stub_raises.py")
    assert result.error is None and result.updated is not None
    path = tmp_path / "rewritten_stub_raises.py"
    path.write_bytes(result.updated + b"\n\ndef compat_entry():\n    return signature_p.bind, (np.ones(3, np.float32),)\n"
                     b"\n\nimport numpy as np\nsignature_p.def_abstract_eval(lambda paths, **_: paths)\n")
    module = load_module(str(path))
    # Called as an MLIR lowering rule (ctx, *operands, **params), it raises what the
    # translation rule raised, not a TypeError about its parameters.
    with pytest.raises(NotImplementedError):
        lower_entry(module, "compat_entry")


def _manual_messages(name: str) -> list[str]:
    result = _rewrite(name)
    assert result.updated is None and result.error is None
    return [c.message for c in result.changes if c.safety is Safety.MANUAL]


def test_list_of_shapes_inside_the_layouts_is_reported_with_the_typeerror() -> None:
    messages = _manual_messages("factory_nested_layouts.py")
    registration = [m for m in messages if m.startswith("translation rule `_grad_translation`")]
    assert len(registration) == 1
    assert "`operand_shapes`, a list of XLA shapes" in registration[0] and "TypeError" in registration[0]


def test_decorated_rule_says_why_it_stays() -> None:
    result = _rewrite("manual_decorated_token.py")
    messages = [c.message for c in result.changes if c.safety is Safety.MANUAL]
    assert any("`barrier_xla_encode_cpu`" in m and "wrapped by `@translation_rule_cpu`" in m for m in messages)
    assert not any("`barrier_xla_encode_gpu`" in m for m in messages)


@pytest.mark.parametrize("rule, reason", [
    # Layouts given: ffi_lowering would lay out a token result, not the tuple XlaBuilder built.
    (b"out = xla_client.ops.CustomCallWithLayout(c, b'k', operands=(token,), shape_with_layout=sh,\n"
     b"        operand_shapes_with_layout=(xla_client.Shape.token_shape(),))\n    return xla_client.ops.GetTupleElement(out, 0)",
     "threads an XLA token"),
    # The tuple itself returned: the primitive's result would be the tuple.
    (b"return xla_client.ops.CustomCall(c, b'k', operands=(token,), shape=sh)", "threads an XLA token"),
    (b"out = xla_client.ops.CustomCall(c, b'k', operands=(token,), shape=sh)\n    return xla_client.ops.GetTupleElement(token, 0)",
     "the custom call held by `out` is not returned"),
])
def test_token_tuples_without_the_same_op_stay_manual(rule: bytes, reason: str) -> None:
    source = (b"from jax.interpreters import xla\nfrom jax.lib import xla_client\n\n\ndef rule(c, token):\n"
              b"    sh = xla_client.Shape.tuple_shape([xla_client.Shape.token_shape()])\n    " + rule +
              b"\n\n\nxla.backend_specific_translations['cpu'][p] = rule\n")
    result = rewrite_source(source, "token_manual.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    messages = [c.message for c in result.changes if c.safety is Safety.MANUAL]
    assert any(reason in m for m in messages), messages


def test_token_tuple_bound_where_the_scan_cannot_follow_stays_manual() -> None:
    # A walrus binds the one-token tuple: the custom call's shape is not known to be it,
    # and converting the call as a plain one would leave Shape.token_shape() behind.
    source = (b"from jax.interpreters import xla\nfrom jax.lib import xla_client\n\n\ndef rule(c, token):\n"
              b"    (sh := xla_client.Shape.tuple_shape([xla_client.Shape.token_shape()]))\n"
              b"    return xla_client.ops.CustomCall(c, b'k', operands=(token,), shape=sh)\n\n\n"
              b"xla.backend_specific_translations['cpu'][p] = rule\n")
    result = rewrite_source(source, "token_walrus.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    assert any("threads an XLA token" in c.message for c in result.changes if c.safety is Safety.MANUAL)


def test_rule_defined_twice_in_the_factory_is_not_guessed() -> None:
    source = b"""from jax.interpreters import xla
from jax.lib import xla_client


def make(p, fast):
    if fast:
        def rule(c, x):
            return xla_client.ops.CustomCall(c, b"fast", operands=(x,), shape=xla_client.Shape.array_shape(x, (), ()))
    else:
        def rule(c, x):
            return xla_client.ops.CustomCall(c, b"slow", operands=(x,), shape=xla_client.Shape.array_shape(x, (), ()))
    xla.backend_specific_translations["cpu"][p] = rule
"""
    result = rewrite_source(source, "factory_twice.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    assert any("`rule` is defined more than once" in c.message for c in result.changes if c.safety is Safety.MANUAL)


def test_builder_passed_to_a_helper_from_elsewhere_is_named() -> None:
    source = b"""import numpy as np
from jax.interpreters import xla
from jax.lib import xla_client
from mpi_ext.utils import xla_constant_uintptr


def encode_cpu(c, x, comm):
    shape = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))
    return xla_client.ops.CustomCallWithLayout(
        c, b"mpi_allreduce", operands=(xla_constant_uintptr(c, comm), x), shape_with_layout=shape,
        operand_shapes_with_layout=(xla_client.Shape.array_shape(np.dtype(np.uintp), (), ()), shape))


xla.backend_specific_translations["cpu"][p] = encode_cpu
"""
    result = rewrite_source(source, "helper_elsewhere.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    reasons = [c.message for c in result.changes if c.safety is Safety.MANUAL and c.message.startswith("translation rule")]
    assert len(reasons) == 1 and "passes the XlaBuilder to `xla_constant_uintptr(c, comm)`" in reasons[0]


def test_registration_with_arguments_mlir_lacks_stays_manual() -> None:
    source = b"""import numpy as np
from jax.interpreters import xla
from jax.lib import xla_client


def rule(ctx, avals_in, avals_out, x):
    shape = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))
    return [xla_client.ops.CustomCallWithLayout(ctx.builder, b"k", operands=(x,), shape_with_layout=shape,
                                                operand_shapes_with_layout=(shape,))]


xla.register_translation(p, rule, initial_style=True)
"""
    result = rewrite_source(source, "initial_style.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    assert any("unusual arguments" in c.message for c in result.changes if c.safety is Safety.MANUAL)


def test_parameter_rebound_on_one_path_stays_manual() -> None:
    source = b"""import numpy as np
from jax.interpreters import xla
from jax.lib import xla_client


def rule(c, x, *, layout=None):
    if layout is None:
        layout = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))
    return xla_client.ops.CustomCallWithLayout(c, b"k", operands=(x,), shape_with_layout=layout,
                                               operand_shapes_with_layout=(layout,))


xla.backend_specific_translations["cpu"][p] = rule
"""
    result = rewrite_source(source, "rebound.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    assert any("reassigns its parameter `layout`" in c.message for c in result.changes if c.safety is Safety.MANUAL)


HELPER_MODULE = b"""import numpy as np
from jax.interpreters import xla
from jax.lib import xla_client


def {name}(c, x):
    return xla_client.ops.Constant(c, np.int32(x))


def rule(c, x, *, n):
    shape = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))
    return xla_client.ops.CustomCallWithLayout(c, b"k", operands=({name}(c, n), x), shape_with_layout=shape,
                                               operand_shapes_with_layout=(xla_client.Shape.array_shape(np.dtype(np.int32), (), ()), shape))


xla.backend_specific_translations["cpu"][p] = rule
{extra}"""


def test_constant_helper_inlined_but_kept_when_it_may_be_used_elsewhere() -> None:
    # Still referenced outside the rule: kept, and reported.
    source = HELPER_MODULE.replace(b"{name}", b"_constant_s32").replace(b"{extra}", b"other = _constant_s32\n")
    result = rewrite_source(source, "helper_kept.py", ["--select", "xla-translation-rule"])
    assert result.error is None and result.updated is not None
    updated = result.updated.decode()
    assert "mlir.ir_constant(np.asarray(np.int32(n)))" in updated
    assert "def _constant_s32(c, x):" in updated
    assert any(c.safety is Safety.MANUAL and "xla_client.ops.Constant" in c.message for c in result.changes)


def test_public_constant_helper_inlined_here_returns_an_mlir_constant_for_other_modules() -> None:
    # Public: other modules may import it; its XlaBuilder body cannot run on this jax, so it
    # builds the MLIR constant itself, and the module stops importing xla_client.
    source = HELPER_MODULE.replace(b"{name}", b"constant_s32").replace(b"{extra}", b"")
    result = rewrite_source(source, "helper_public.py", ["--select", "xla-translation-rule"])
    assert result.error is None and result.updated is not None
    updated = result.updated.decode()
    assert "mlir.ir_constant(np.asarray(np.int32(n)))" in updated
    assert "def constant_s32(c, x):\n    return mlir.ir_constant(np.asarray(np.int32(x)))" in updated
    assert "xla_client" not in updated
    assert not any(c.safety is Safety.MANUAL for c in result.changes)
    again = rewrite_source(result.updated, "helper_public.py", ["--select", "xla-translation-rule"])
    assert again.error is None and again.updated is None


def test_constant_helper_with_an_argument_that_would_be_evaluated_twice_is_not_inlined() -> None:
    source = HELPER_MODULE.replace(b"{name}", b"_constant_s32").replace(b"{extra}", b"").replace(
        b"_constant_s32(c, n)", b"_constant_s32(c, next_id())")
    result = rewrite_source(source, "helper_call_argument.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    assert any("passes the XlaBuilder to `_constant_s32(c, next_id())`" in c.message for c in result.changes)


def test_from_jax_import_xla_used_only_to_register_is_not_reported_once_converted() -> None:
    path = os.path.join(FOLDER, "from_jax_import_xla.py")
    with open(path, "rb") as fh:
        source = fh.read()
    select = ["--select", "xla-translation-rule,removed-jax-api"]
    result = rewrite_source(source, path, select)
    assert b"from jax import xla" not in result.updated
    assert [c.message for c in result.changes if c.safety is Safety.MANUAL] == []
    # Another use of `xla` keeps the import, moved where that member lives, in the same
    # run as the conversion (the engine's self-check fails a rewrite a second run changes).
    kept = rewrite_source(source + b"\napply = xla.apply_primitive\n", path, select)
    assert kept.error is None and b"from jax.interpreters import mlir, xla" in kept.updated
    assert b"from jax import xla" not in kept.updated and b"mlir.register_lowering(solve_p" in kept.updated
    assert [c.message for c in kept.changes if c.safety is Safety.MANUAL] == []


_FORWARD = b"""from jax.interpreters import xla
from jax.lib import xla_client


def %(helper)s(c, x):
    s = xla_client.Shape.array_shape(c.get_shape(x).element_type(), (4,), (0,))
    return xla_client.ops.CustomCallWithLayout(c, b"k", operands=(x,), shape_with_layout=s, operand_shapes_with_layout=(s,))


def _rule(c, x, y):
    return %(helper)s(c, %(args)s)


xla.backend_specific_translations["cpu"][p] = _rule
"""


@pytest.mark.parametrize("helper, args, extra, reason", [
    # Another caller would still hand the helper an XlaBuilder.
    ("_kernel", "x, y", "\n\ndef other(c, x):\n    return _kernel(c, x)\n", "also used other than by the translation rules"),
    ("kernel", "x, y", "", "other modules may call with a builder too"),
    ("_kernel", "y, x", "", "with arguments other than its operands in order (x, y)"),
    ("_kernel", "x", "", "with arguments other than its operands in order"),
])
def test_rule_forwarding_its_builder_stays_manual_with_the_reason(helper, args, extra, reason) -> None:
    source = _FORWARD % {b"helper": helper.encode(), b"args": args.encode()} + extra.encode()
    if args == "x, y":
        source = source.replace(b"(c, x):\n    s", b"(c, x, y):\n    s")
    result = rewrite_source(source, "forward.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    reasons = [c.message for c in result.changes if c.safety is Safety.MANUAL and c.message.startswith("translation rule `_rule`")]
    assert len(reasons) == 1 and reason in reasons[0], reasons


def test_method_rule_with_layouts_from_elsewhere_or_inherited_stays_manual() -> None:
    source = b"""from functools import partial

from jax.interpreters import xla
from jax.lib import xla_client


class Pool(Base):
    def _recv_translation(self, c, handle, *, platform="cpu"):
        return xla_client.ops.CustomCallWithLayout(
            c, b"recv", operands=(handle,), operand_shapes_with_layout=self._shapes(),
            shape_with_layout=xla_client.Shape.tuple_shape(self._shapes()), has_side_effect=True)

    def setup(self):
        xla.backend_specific_translations["cpu"][self.recv_p] = partial(self._recv_translation, platform="cpu")
        xla.backend_specific_translations["cpu"][self.send_p] = self._send_translation
"""
    result = rewrite_source(source, "method.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    reasons = [c.message for c in result.changes if c.safety is Safety.MANUAL]
    # An XLA shape built elsewhere would reach ffi_lowering as a layout unchanged.
    assert any("`_recv_translation`" in m and "`self._shapes()` are not built with Shape.array_shape" in m for m in reasons)
    assert any("`_send_translation` is not defined in class `Pool` (it may come from a base class)" in m for m in reasons)


def test_builder_ops_around_the_custom_call_lower_to_the_same_stablehlo_ops(tmp_path) -> None:
    """The rule registered by a local decorator reshapes and transposes its operands and
    result: each builder op becomes the StableHLO op of the same semantics, in order,
    and the custom call sees the flattened operands as before."""
    from jax.extend.mlir import ir

    result = _rewrite("builder_ops_decorator.py")
    assert result.error is None and result.updated is not None
    assert not [c for c in result.changes if c.safety is not Safety.SAFE]
    path = tmp_path / "rewritten_builder_ops_decorator.py"
    path.write_bytes(result.updated)
    lowered = lower_entry(load_module(str(path)), "compat_entry")
    main = next(op.operation for op in lowered.body.operations if ir.StringAttr(op.attributes["sym_name"]).value == "main")
    ops = [op.operation for op in main.regions[0].blocks[0].operations]
    names = [op.name.split(".")[-1] for op in ops]
    assert names == ["reshape", "reshape", "transpose", "reshape", "constant", "custom_call", "reshape", "transpose", "reshape", "return"]

    def shape(value) -> list[int]:
        return list(ir.RankedTensorType(value.type).shape)

    call = ops[5]
    assert ir.StringAttr(call.attributes["call_target_name"]).value == "tri_solve_f32"
    assert [shape(v) for v in call.operands] == [[], [18], [24]] and [shape(v) for v in call.results] == [[24]]
    # The flattened right-hand side is b transposed per batch, as the legacy rule built it.
    assert shape(ops[2].operands[0]) == [2, 3, 4] and list(ir.DenseI64ArrayAttr(ops[2].attributes["permutation"])) == [0, 2, 1]
    assert ops[6].operands[0] == call.results[0] and shape(ops[6].results[0]) == [2, 4, 3]
    assert list(ir.DenseI64ArrayAttr(ops[7].attributes["permutation"])) == [0, 2, 1] and shape(ops[8].results[0]) == [2, 3, 4]


def test_builder_ops_without_a_stablehlo_counterpart_stay_manual() -> None:
    source = b"""from functools import partial
from jax.interpreters import xla
from jax.lib import xla_client


def rule(c, x):
    x = xla_client.ops.Transpose(x, (1, 0))
    y = xla_client.ops.Sort(x)
    return xla_client.ops.CustomCallWithLayout(c, b"k", operands=(y,), shape_with_layout=c.get_shape(y),
                                               operand_shapes_with_layout=(c.get_shape(y),))


def transposed(c, x):
    x = xla_client.ops.Transpose(x, (1, 0))
    return xla_client.ops.CustomCallWithLayout(c, b"k", operands=(x,), shape_with_layout=c.get_shape(x),
                                               operand_shapes_with_layout=(c.get_shape(x),))


xla.backend_specific_translations["cpu"][p] = rule
xla.backend_specific_translations["cpu"][q] = transposed
"""
    result = rewrite_source(source, "ops.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    messages = [c.message for c in result.changes if c.safety is Safety.MANUAL]
    assert any("`rule`" in m and "xla_client.ops.Sort, which has no StableHLO conversion" in m for m in messages)
    # XlaBuilder gave a transposed op a permuted layout; None (row-major) would change it.
    assert any("`transposed`" in m and "a transposed op" in m for m in messages)


_BOUND = b"""from functools import partial

import numpy as np
from jax.interpreters import xla
from jax.lib import xla_client


def _rule(name, c, x):
    s = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))
    return xla_client.ops.CustomCallWithLayout(c, name, operands=(x,), shape_with_layout=s, operand_shapes_with_layout=(s,))


%(registration)s
"""


def test_rule_with_a_positionally_bound_leading_argument_keeps_it() -> None:
    source = _BOUND % {b"registration": b'xla.backend_specific_translations["cpu"][p] = partial(_rule, b"k")'}
    result = rewrite_source(source, "bound.py", ["--select", "xla-translation-rule"])
    assert result.error is None and result.updated is not None
    updated = result.updated.decode()
    assert "def _rule(name, ctx, x):" in updated
    assert 'mlir.register_lowering(p, partial(_rule, b"k"), platform="cpu")' in updated
    assert "_ccmigrate_target_name(name)" in updated


@pytest.mark.parametrize("registration, reason", [
    # The decorator factory is also called directly: what it registers is not only the
    # functions it decorates.
    (b'def register(prim):\n    def decorator(fun):\n        xla.backend_specific_translations["cpu"][prim] = partial(fun, b"k")\n'
     b'        return fun\n    return decorator\n\n\nregister(p)(_rule)\n', "also used other than as `@register(...)`"),
    # The decorator returns a wrapper, not the rule.
    (b'def register(prim):\n    def decorator(fun):\n        xla.backend_specific_translations["cpu"][prim] = partial(fun, b"k")\n'
     b'        return lambda *a: fun(*a)\n    return decorator\n', "returning a decorator that returns `fun` unchanged"),
    # XlaBuilder rejected a rank-2 shape with a rank-1 layout: the rule never built.
    (b'xla.backend_specific_translations["cpu"][p] = _bad\n\n\ndef _bad(c, x):\n'
     b'    s = xla_client.Shape.array_shape(np.dtype(np.float32), (4, 4), (0,))\n'
     b'    return xla_client.ops.CustomCallWithLayout(c, b"k", operands=(x,), shape_with_layout=s, operand_shapes_with_layout=(s,))\n',
     "raised INVALID_ARGUMENT"),
])
def test_registrations_that_stay_manual_say_why(registration: bytes, reason: str) -> None:
    result = rewrite_source(_BOUND % {b"registration": registration}, "manual.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    assert any(reason in c.message for c in result.changes if c.safety is Safety.MANUAL), [c.message for c in result.changes]


def test_old_builder_api_get_shape_rule_lowers_with_the_count_constant_and_no_layouts(tmp_path) -> None:
    """``c.GetShape(x)`` of the old builder API reads the operand's aval like
    ``get_shape``; the kernel is still chosen per dtype and the count constant leads."""
    from tests.compat.custom_calls import custom_calls

    result = _rewrite("old_builder_get_shape.py")
    assert result.error is None and result.updated is not None
    assert not [c for c in result.changes if c.safety is not Safety.SAFE]
    code = result.updated.split(b'"""', 2)[2]  # past the module docstring, which names them
    assert b"xla_client" not in code and b"GetShape" not in code
    path = tmp_path / "rewritten_old_builder_get_shape.py"
    path.write_bytes(result.updated)
    (call,) = custom_calls(lower_entry(load_module(str(path)), "compat_entry"))
    assert call["target"] == "bcast_f32" and call["api_version"] == 1
    assert call["operand_types"] == ["tensor<i32>", "tensor<2x3xf32>"] and call["result_types"] == ["tensor<2x3xf32>"]
    # ops.CustomCall gave the op no layouts: none are added.
    assert call["operand_layouts"] is None and call["result_layouts"] is None


def test_rule_imported_from_another_module_names_that_module() -> None:
    messages = _manual_messages("imported_rule.py")
    assert any("`cpu_encode` is `encode` of module `kernels.cpu_backend`, another file" in m
               and "make `encode` an MLIR lowering rule in `kernels.cpu_backend`" in m for m in messages)
    assert any("`gpu_backend.encode` is `encode` of module `kernels.gpu_backend`" in m
               and "register `partial(gpu_backend.encode, b\"solve_gpu\")` here" in m for m in messages)


def test_decorators_that_touch_the_arguments_or_live_elsewhere_keep_the_rule_manual() -> None:
    from codemods.engine import package_of, process_source
    from codemods.rules import select_rules

    path = os.path.join(TESTDATA, "rules", "xla-translation-rule", "decorated_package", "manual_ops.py")
    with open(path, "rb") as fh:
        source = fh.read()
    options, select, ignore = options_from(["--select", "xla-translation-rule"])
    result = process_source(path, source, select_rules(select, ignore), options, package_of(path))
    assert result.error is None and result.updated is None
    registrations = {c.line: c.message for c in result.changes if c.safety is Safety.MANUAL and "registered" not in c.message
                     and "translation rule `" in c.message}
    assert sorted(registrations) == [28, 29]
    assert "`@rule_traced`, which is not a function of this project that passes" in registrations[28]
    assert "`@rule_elsewhere`" in registrations[29]


def test_lower_fun_no_registration_reaches_is_reported_where_it_is_called():
    """A rule made by a factory: the registration names a variable, the call sits in the
    factory's nested function; both lines are reported."""
    source = (
        b"from jax.interpreters import xla\n"
        b"from jax.extend.core import Primitive\n"
        b"\n"
        b"shared_p = Primitive('shared')\n"
        b"\n"
        b"\n"
        b"def _impl(x):\n"
        b"    return (x,)\n"
        b"\n"
        b"\n"
        b"def _make_rule():\n"
        b"    def rule(c, x):\n"
        b"        return xla.lower_fun(_impl, multiple_results=True)(c, x)\n"
        b"    return rule\n"
        b"\n"
        b"\n"
        b"xla.translations[shared_p] = _make_rule()\n"
    )
    result = rewrite_source(source, "m.py", ["--select", "xla-translation-rule"])
    assert result.updated is None and result.error is None
    manual = {c.line: c.message for c in result.changes if c.safety is Safety.MANUAL}
    assert 13 in manual and manual[13].startswith("xla.lower_fun was removed with translation rules (gone from jax 0.4.4)")
    assert 17 in manual


def _rewritten_module(tmp_path, name: str):
    result = _rewrite(name)
    assert result.error is None and result.updated is not None
    assert not [c for c in result.changes if c.safety is not Safety.SAFE]
    code = result.updated.split(b'"""', 2)[2]  # past the module docstring, which names them
    assert b"xla_client" not in code and b"GetShape" not in code and b"import xla" not in code
    path = tmp_path / f"rewritten_{name}"
    path.write_bytes(result.updated)
    return load_module(str(path))


def test_builder_method_custom_calls_lower_to_the_op_the_builder_built(tmp_path) -> None:
    """The ComputationBuilder's c.CustomCall and c.CustomCallWithLayout took layouts and no
    api_version: the op with those layouts, api_version 1 (ORIGINAL), opaque bytes as
    backend_config, and c.GetShape(x) as a layout the row-major default XLA gave it."""
    from tests.compat.custom_calls import custom_calls

    module = _rewritten_module(tmp_path, "builder_method.py")
    (subtract,) = custom_calls(lower_entry(module, "compat_entry"))
    assert subtract == {
        "target": "test_subtract_f32", "api_version": 1, "backend_config": None,
        "operand_layouts": [[], []], "result_layouts": [[]], "has_side_effect": False,
        "operand_types": ["tensor<f32>", "tensor<f32>"], "result_types": ["tensor<f32>"],
    }
    (square,) = custom_calls(lower_entry(module, "compat_entry_square"))
    assert square["target"] == "square_f32" and square["api_version"] == 1
    assert square["backend_config"] == {"opaque": b"\x02\x00sq".hex()}
    assert square["operand_layouts"] == [[1, 0]] and square["result_layouts"] == [[1, 0]]
    assert square["operand_types"] == ["tensor<2x3xf32>"] and square["result_types"] == ["tensor<2x3xf32>"]


def test_builder_constant_methods_become_constant_operands_of_their_scalar_type(tmp_path) -> None:
    """c.ConstantPredScalar(lower) and c.ConstantS32Scalar(n) built np.array(v, dtype) of
    their type: the operands are constants of that type and value, ahead of the matrix,
    whose column-major layout is kept."""
    from jax.extend.mlir import ir

    from tests.compat.custom_calls import describe

    module = _rewritten_module(tmp_path, "builder_method_constants.py")
    lowered = lower_entry(module, "compat_entry")
    main = next(op.operation for op in lowered.body.operations if ir.StringAttr(op.attributes["sym_name"]).value == "main")
    (op,) = [o.operation for o in main.regions[0].blocks[0].operations if o.operation.name == "stablehlo.custom_call"]
    call = describe(op)
    assert call["target"] == "lapack_spotrf" and call["api_version"] == 1 and call["backend_config"] is None
    assert call["operand_types"] == ["tensor<i1>", "tensor<i32>", "tensor<3x3xf32>"]
    assert call["operand_layouts"] == [[], [], [0, 1]] and call["result_layouts"] == [[0, 1]]
    constants = [operand.owner for operand in list(op.operands)[:2]]
    assert [c.name for c in constants] == ["stablehlo.constant", "stablehlo.constant"]
    # partial(jax_potrf, lower=True) on a 3x3 matrix: lower is true, n is 3.
    assert [ir.DenseIntElementsAttr(c.attributes["value"])[0] for c in constants] == [1, 3]


_METHOD_RULES = b"""import numpy as np
from jax.interpreters import xla
from jaxlib import xla_client


def _unpack_builder(c):
    return getattr(c, "_builder", c)


def unwrapped(c, x):
    c = _unpack_builder(c)
    s = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))
    return c.CustomCallWithLayout(b"k", operands=(c.ConstantS64Scalar(4), x), shape_with_layout=s,
                                  operand_shapes_with_layout=(xla_client.Shape.array_shape(np.dtype(np.int64), (), ()), s))


def in_context(ctx, avals_in, avals_out, x):
    return [ctx.builder.CustomCall(b"k", (x,), ctx.builder.GetShape(x), (ctx.builder.GetShape(x),), b"cfg")]


xla.backend_specific_translations["cpu"][p] = unwrapped
xla.register_translation(q, in_context, platform="cpu")
"""


def test_builder_method_on_every_spelling_of_the_builder_is_converted() -> None:
    result = rewrite_source(_METHOD_RULES, "methods.py", ["--select", "xla-translation-rule"])
    assert result.error is None and result.updated is not None
    assert not [c for c in result.changes if c.safety is not Safety.SAFE]
    updated = result.updated.decode()
    assert "xla_client" not in updated and "_unpack_builder" not in updated and ".builder" not in updated
    # Positional arguments follow the method's order (name, operands, shape, operand shapes, opaque).
    assert 'backend_config=b"cfg"' in updated and "operand_layouts=(None,)" in updated
    assert "mlir.ir_constant(np.asarray(np.int64(4)))" in updated
    assert "def in_context(ctx, x):" in updated and "def unwrapped(ctx, x):" in updated


@pytest.mark.parametrize("call, reason", [
    # The method had no api_version parameter: XlaBuilder code passing one raised TypeError.
    (b'c.CustomCall(b"k", operands=(x,), shape_with_layout=s, operand_shapes_with_layout=(s,), api_version=2)',
     "unknown arguments ['api_version']"),
    # Another object's CustomCall is not the builder's op: its shapes stay XLA shapes.
    (b'other.CustomCall(b"k", operands=(x,), shape_with_layout=s, operand_shapes_with_layout=(s,))',
     "shape `s` is used for more than a layout"),
    (b'c.CustomCall(b"k", operands=(c.ConstantS32Scalar(n=1), x), shape_with_layout=s, operand_shapes_with_layout=(s, s))',
     "an unusual c.ConstantS32Scalar"),
])
def test_builder_method_calls_that_stay_manual_say_why(call: bytes, reason: str) -> None:
    source = (b"import numpy as np\nfrom jax.interpreters import xla\nfrom jaxlib import xla_client\n\n\n"
              b"def rule(c, x):\n    s = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))\n"
              b"    return " + call + b"\n\n\nxla.backend_specific_translations['cpu'][p] = rule\n")
    result = rewrite_source(source, "manual_method.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    messages = [c.message for c in result.changes if c.safety is Safety.MANUAL]
    assert any(reason in m for m in messages), messages


@pytest.mark.parametrize("helper", [
    "def layout(s):\n    return tuple(range(len(s.dimensions())))\n",  # column-major: not the default
    "def layout(s, n=0):\n    return tuple(range(len(s.dimensions()) - 1, -1, -1))\n",
])
def test_layout_computed_from_a_builder_shape_by_another_helper_stays_manual(helper: str) -> None:
    """Only the row-major layout of the shape is its default (None); None handed to any
    other computation would fail at lowering with AttributeError."""
    source = (b"from jax.interpreters import xla\nfrom jax.lib import xla_client\n\n\n" + helper.encode() + b"\n\n"
              b"def rule(c, x):\n    info = c.get_shape(x)\n"
              b"    s = xla_client.Shape.array_shape(info.element_type(), info.dimensions(), layout(info))\n"
              b"    return xla_client.ops.CustomCallWithLayout(c, b'k', operands=(x,), shape_with_layout=s,\n"
              b"                                               operand_shapes_with_layout=(s,))\n\n\n"
              b"xla.backend_specific_translations['cpu'][p] = rule\n")
    result = rewrite_source(source, "layout_helper_manual.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    messages = [c.message for c in result.changes if c.safety is Safety.MANUAL]
    assert any("the builder shape `info` is used inside a layout (`layout(info)`)" in m for m in messages), messages


def test_rebound_primitive_parameters_reach_the_constants_unwrapped(tmp_path) -> None:
    """`op = unpack_hashable(op)` stays in the lowering rule: the constant operands hold the
    unwrapped values (the element count 6, op 3, comm 7), not the wrappers."""
    from jax.extend.mlir import ir

    module = _rewritten_module(tmp_path, "static_param_reassigned.py")
    lowered = lower_entry(module, "compat_entry")
    main = next(op.operation for op in lowered.body.operations if ir.StringAttr(op.attributes["sym_name"]).value == "main")
    (op,) = [o.operation for o in main.regions[0].blocks[0].operations if o.operation.name == "stablehlo.custom_call"]
    constants = [list(op.operands)[i].owner for i in (0, 2, 3)]
    assert [c.name for c in constants] == ["stablehlo.constant"] * 3
    assert [ir.DenseIntElementsAttr(c.attributes["value"])[0] for c in constants] == [6, 3, 7]


def test_parameter_used_as_an_operand_still_may_not_be_rebound() -> None:
    source = b"""import numpy as np
from jax.interpreters import xla
from jax.lib import xla_client


def rule(c, x, comm):
    x = unwrap(x)
    s = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))
    return xla_client.ops.CustomCallWithLayout(c, b"k", operands=(x,), shape_with_layout=s, operand_shapes_with_layout=(s,))


xla.backend_specific_translations["cpu"][p] = rule
"""
    result = rewrite_source(source, "operand_rebound.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    assert any("reassigns its parameter `x`" in c.message for c in result.changes if c.safety is Safety.MANUAL)


@pytest.mark.parametrize("use, reason", [
    # zip pairs each shape with something the rewrite does not follow.
    ("for x, layout in zip(points_info, layouts)", "`points_info`, the operands' builder shapes, is used other than by iterating"),
    # An XLA shape method with no aval counterpart.
    ("for x in points_info if x.rank()", "the builder shape `x` is used beyond dimensions()/element_type()"),
])
def test_star_operand_shapes_used_otherwise_stay_manual(use: str, reason: str) -> None:
    source = f"""from jax.interpreters import xla
from jax.lib import xla_client


def rule(c, source, *points):
    points_info = list(map(c.get_shape, points))
    layouts = [(0,) for _ in points]
    shapes = tuple(xla_client.Shape.array_shape(x.element_type(), x.dimensions(), (0,)) {use})
    return xla_client.ops.CustomCallWithLayout(c, b"k", operands=(source, *points), shape_with_layout=c.get_shape(source),
                                               operand_shapes_with_layout=(c.get_shape(source),) + shapes)


xla.backend_specific_translations["cpu"][p] = rule
""".encode()
    result = rewrite_source(source, "star_shapes_manual.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    messages = [c.message for c in result.changes if c.safety is Safety.MANUAL]
    assert any(reason in m for m in messages), messages


def test_one_token_tuple_result_keeps_its_tuple_type(tmp_path) -> None:
    """XlaBuilder's custom call returned tuple<token> (the kernel's `out` a one-element
    pointer array) and GetTupleElement took the token out: the same two ops, no layouts."""
    from jax.extend.mlir import ir

    module = _rewritten_module(tmp_path, "token_tuple.py")
    lowered = lower_entry(module, "compat_entry")
    main = next(op.operation for op in lowered.body.operations if ir.StringAttr(op.attributes["sym_name"]).value == "main")
    ops = [op.operation for op in main.regions[0].blocks[0].operations]
    (index,) = [i for i, op in enumerate(ops) if op.name == "stablehlo.custom_call"]
    call, get = ops[index], ops[index + 1]
    assert ir.StringAttr(call.attributes["call_target_name"]).value == "mpi_barrier"
    assert "operand_layouts" not in call.attributes and "result_layouts" not in call.attributes
    (result,) = call.results
    result_type = ir.TupleType(result.type)  # raises unless the result is a tuple
    assert result_type.num_types == 1 and str(result_type.get_type(0)) == "!stablehlo.token"
    assert get.name == "stablehlo.get_tuple_element" and get.operands[0] == result
    assert ir.IntegerAttr(get.attributes["index"]).value == 0
    assert ops[index + 2].name == "func.return" and ops[index + 2].operands[0] == get.results[0]


def test_mlir_lowering_of_the_same_attribute_in_another_method_still_supersedes() -> None:
    """`self.primitive` in two methods of one class is one object's attribute (unlike two
    functions' parameters named alike, register_helpers_alternatives.py)."""
    source = b"""import numpy as np
from jax.interpreters import mlir, xla
from jax.lib import xla_client


def _rule(c, x):
    s = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))
    return xla_client.ops.CustomCallWithLayout(c, b"k", operands=(x,), shape_with_layout=s, operand_shapes_with_layout=(s,))


class Op:
    def __init__(self, prim, lowering):
        self.primitive = prim
        mlir.register_lowering(self.primitive, lowering, platform="cpu")

    def setup(self):
        xla.backend_specific_translations["cpu"][self.primitive] = _rule
"""
    result = rewrite_source(source, "same_attribute.py", ["--select", "xla-translation-rule"])
    assert result.error is None and result.updated is not None
    assert b"backend_specific_translations" not in result.updated
    assert result.updated.count(b"register_lowering") == 1


def test_rules_behind_forwarding_decorators_lower_through_them(tmp_path, capsys) -> None:
    """`@trace(label)` and `@timed` stay on the lowering rules and still run: the rule
    receives (ctx, operand) through them and its custom call comes back unchanged."""
    from jax.extend.mlir import ir

    path = os.path.join(FOLDER, "decorator_factory_passthrough.py")
    with open(path, "rb") as fh:
        result = rewrite_source(fh.read(), path, ["--select", "xla-translation-rule,core-primitive"])
    assert result.error is None and result.updated is not None
    path = tmp_path / "rewritten_decorators.py"
    # The `@first_only` rule stays manual: its registration and the import kept for it go here.
    kept = [line for line in result.updated.splitlines(keepends=True)
            if b"import xla_client" not in line and b"[inverse_p]" not in line]
    path.write_bytes(b"".join(kept) + b"\n\ndef compat_entry():\n    return step_p.bind, (np.ones((2, 3)),)\n"
                     b"\n\ndef compat_entry_forward():\n    return forward_p.bind, (np.ones((2, 3)),)\n"
                     b"\n\nfor _p in (step_p, forward_p):\n    _p.def_abstract_eval(lambda q: q)\n")
    module = load_module(str(path))
    for entry, target in (("compat_entry", "mj_step"), ("compat_entry_forward", "mj_forward")):
        lowered = lower_entry(module, entry)
        calls = [op.operation for op in lowered.body.operations[0].regions[0].blocks[0].operations
                 if op.operation.name == "stablehlo.custom_call"]
        assert [ir.StringAttr(c.attributes["call_target_name"]).value for c in calls] == [target]
        assert str(calls[0].attributes["operand_layouts"]) == "[dense<[1, 0]> : tensor<2xindex>]"
    printed = capsys.readouterr().out
    assert "step_translation" in printed and "_forward_translation" in printed


def test_elementwise_rules_lower_to_the_same_stablehlo_ops(tmp_path) -> None:
    """multiply_add's XLA Add(Mul(x, y), z) becomes stablehlo.multiply then add on the
    same operands; Mul(Tanh(x), s) becomes tanh then multiply."""
    path = os.path.join(FOLDER, "elementwise_ops_rule.py")
    with open(path, "rb") as fh:
        result = rewrite_source(fh.read(), path, ["--select", "xla-translation-rule,core-primitive"])
    assert result.error is None and result.updated is not None
    # `ratio` (an XLA Div) stays manual: its registration and the import kept for it go here.
    kept = [line for line in result.updated.splitlines(keepends=True)
            if b"import xla_client" not in line and b"[ratio_p]" not in line]
    module_path = tmp_path / "rewritten_elementwise.py"
    module_path.write_bytes(b"".join(kept) + b"\n\nimport numpy as np\n"
                            b"for _p in (multiply_add_p, scaled_tanh_p):\n    _p.def_abstract_eval(lambda x, *rest: x)\n"
                            b"\n\ndef compat_entry():\n    return multiply_add_p.bind, (np.ones(3, np.float32),) * 3\n"
                            b"\n\ndef compat_entry_tanh():\n    return scaled_tanh_p.bind, (np.ones(3, np.float32),) * 2\n")
    module = load_module(str(module_path))
    for entry, expected in (("compat_entry", ["multiply", "add"]), ("compat_entry_tanh", ["tanh", "multiply"])):
        lowered = lower_entry(module, entry)
        main = lowered.body.operations[0]
        names = [op.operation.name.split(".")[-1] for op in main.regions[0].blocks[0].operations]
        assert [n for n in names if n not in ("return", "call")] == expected, names


def test_aliases_and_shapes_of_members_jaxlib_still_has_are_not_reported() -> None:
    path = os.path.join(TESTDATA, "rules", "xla-translation-rule", "alias_of_remaining_member.py")
    with open(path, "rb") as fh:
        result = rewrite_source(fh.read(), path, ["--select", "xla-translation-rule"])
    # `xops = xla_client.ops` goes; `Shape.from_pyval`, which jaxlib no longer has, is reported.
    assert sorted((c.line, c.safety.value) for c in result.changes) == [(12, "safe"), (26, "manual")]


def test_shape_factories_taken_as_present_are_in_the_installed_jaxlib() -> None:
    from jaxlib import xla_client

    from codemods.rules.xla_translation_rule import SHAPE_FACTORIES

    assert all(callable(getattr(xla_client.Shape, name, None)) for name in SHAPE_FACTORIES)


def test_translation_tables_read_outside_a_registration_are_reported() -> None:
    result = _rewrite("translation_table_read.py")
    assert result.updated is None
    assert sorted((c.line, c.safety.value, c.message.split(" ")[0]) for c in result.changes) == [
        (8, "manual", "xla.backend_specific_translations"),
        (13, "manual", "xla.backend_specific_translations"),
        (13, "manual", "xla.translations"),
    ]


def test_a_row_major_method_another_class_redefines_keeps_its_layouts_manual() -> None:
    from tests.helpers import rewrite_source

    path = os.path.join(TESTDATA, "rules", "xla-translation-rule", "row_major_method_helper.py")
    with open(path, "rb") as fh:
        source = fh.read()
    source += (b"\n\nclass ColumnMajorSim(Sim):\n    @staticmethod\n    def _row_major(specs):\n"
               b"        return tuple(xla_client.Shape.array_shape(d, s, tuple(range(len(s)))) for s, d in specs)\n")
    result = rewrite_source(source, "/nonexistent/sim.py", ["--select", "xla-translation-rule"])
    assert result.error is None, result.error
    assert result.updated is None or b"xla_client.ops.CustomCallWithLayout" in result.updated
    assert any(c.safety.value == "manual" and "_push_lowering" in c.message for c in result.changes)


def test_encode_of_an_object_that_is_not_a_string_keeps_the_runtime_decode() -> None:
    from tests.helpers import rewrite_source

    source = (b"from jax.extend.core import Primitive\nfrom jax.interpreters import xla\nfrom jax.lib import xla_client\n\n\n"
              b"class Kernel:\n    def encode(self):\n        return b'scale_f32'\n\n\nKERNEL = Kernel()\np = Primitive('p')\n\n\n"
              b"def rule(c, x):\n    s = c.get_shape(x)\n    return xla_client.ops.CustomCallWithLayout(c, KERNEL.encode(), operands=(x,),"
              b" shape_with_layout=s, operand_shapes_with_layout=(s,))\n\n\nxla.backend_specific_translations['cpu'][p] = rule\n")
    result = rewrite_source(source, "k.py", ["--select", "xla-translation-rule"])
    assert result.error is None, result.error
    assert b"_ccmigrate_target_name(KERNEL.encode())" in result.updated
    literal = source.replace(b"KERNEL.encode()", b"'scale_f32'.encode()")
    assert b"ffi_lowering(\n        'scale_f32'," in rewrite_source(literal, "k.py", ["--select", "xla-translation-rule"]).updated


def test_guarded_registrations_get_advice_for_what_they_register() -> None:
    messages = _manual_messages("guarded_lower_fun_registrations.py")
    assert len(messages) == 2
    assert "also has an MLIR lowering here" in messages[0] and "nothing to migrate" in messages[0]
    assert "mlir.lower_fun(fun, multiple_results=...)" in messages[1] and "ffi_lowering" not in messages[1]


HELPER_BUILDS_THE_CALL = b'''
import numpy as np
from jax.interpreters import xla
from jax.lib import xla_client

xops = xla_client.ops


def _coo_operation(name, c, Ai, b):
    b = xops.Reshape(b, (1, 4))
    return xops.CustomCallWithLayout(c, name, operands=(Ai, b),
                                     shape_with_layout=xla_client.Shape.array_shape(np.dtype(np.float64), (4,), (0,)),
                                     operand_shapes_with_layout=(xla_client.Shape.array_shape(np.dtype(np.int32), (4,), (0,)),
                                                                 xla_client.Shape.array_shape(np.dtype(np.float64), (1, 4), (1, 0))))


def _solve_translation(c, Ai, b):
    return _coo_operation(b"solve", c, Ai, b)


def _rev_translation(c, Ai, b):
    return _coo_operation(b"solve_rev", c, Ai, b)


solve_p = object()
rev_p = object()
xla.backend_specific_translations["cpu"][solve_p] = _solve_translation
xla.backend_specific_translations["cpu"][rev_p] = _rev_translation
'''


def test_helper_building_the_call_and_plain_ops_get_advice_that_fits() -> None:
    result = rewrite_source(HELPER_BUILDS_THE_CALL, "coo.py", ["--select", "xla-translation-rule"])
    messages = [c.message for c in result.changes if c.safety is Safety.MANUAL]
    custom = [m for m in messages if m.startswith("xla_client.ops custom call")]
    assert len(custom) == 1 and "helper of the translation rule(s) `_rev_translation`, `_solve_translation`" in custom[0]
    reshape = [m for m in messages if m.startswith("`xops.Reshape`")]
    assert len(reshape) == 1 and "StableHLO op" in reshape[0] and "ShapeDtypeStruct" not in reshape[0]
    rule = [m for m in messages if m.startswith("translation rule `_solve_translation`")]
    assert len(rule) == 1 and "the helper builds what this rule returns" in rule[0]


def test_guarded_registration_beside_one_for_newer_jax_reads_the_same_after_the_migration() -> None:
    """``if jax < 0.4.31: register a translation rule, else: register it too``: the else
    branch becomes an MLIR lowering in this run; the advice at the guarded one must be the
    one the next run gives (with --annotate the TODO would change again otherwise)."""
    source = (
        b"import jax\n"
        b"from jax.extend.core import Primitive\n"
        b"from jax.interpreters import xla\n"
        b"\n"
        b"p = Primitive('axpy')\n"
        b"\n"
        b"\n"
        b"def _impl(a, x):\n"
        b"    return a * x\n"
        b"\n"
        b"\n"
        b"if jax.__version_info__ < (0, 4, 31):\n"
        b"    xla.translations[p] = xla.lower_fun(_impl, multiple_results=False)\n"
        b"else:\n"
        b"    xla.translations[p] = xla.lower_fun(_impl, multiple_results=False)\n"
    )
    result = rewrite_source(source, "guarded.py", ["--annotate"])
    assert result.error is None, result.error
    guarded = [c for c in result.changes if c.safety is Safety.MANUAL]
    assert [c.line for c in guarded] == [13]
    assert "or a translation rule outside the branch, migrated to one" in guarded[0].message
    assert "else:\n    jax.interpreters.mlir.register_lowering(p, jax.interpreters.mlir.lower_fun(_impl, multiple_results=False))" \
        in result.updated.decode()
    assert rewrite_source(result.updated, "guarded.py", ["--annotate"]).updated is None


def test_constant_helpers_in_a_bound_operand_tuple_lower_in_order(tmp_path) -> None:
    """mpi4jax 0.2's layout: ``operands = (..., helper(c, v), ...)`` then
    ``operands=operands``: each helper call becomes its constant, in place."""
    from tests.compat.custom_calls import custom_calls

    result = _rewrite("constant_helpers_in_bound_operands.py")
    assert result.error is None and not [c for c in result.changes if c.safety is not Safety.SAFE]
    code = result.updated.split(b'"""', 2)[2]
    assert b"xla_client" not in code and b"sh = " not in code  # the shape only shape= read is gone
    path = tmp_path / "rewritten_bound_operands.py"
    path.write_bytes(result.updated)
    lowered = lower_entry(load_module(str(path)), "compat_entry")
    (call,) = custom_calls(lowered)
    assert call["target"] == "mpi_gather" and call["api_version"] == 1
    assert call["operand_types"] == ["tensor<3xf32>", "tensor<6xf32>", "tensor<i32>", "tensor<ui64>"]
    text = str(lowered)
    assert "dense<0> : tensor<i32>" in text and "dense<1234567> : tensor<ui64>" in text
    assert call["result_types"] == ["tensor<6xf32>"]


def test_indexed_shape_list_and_a_repeated_layout_lower_with_the_same_layouts(tmp_path) -> None:
    """``list(map(c.get_shape, args))[0].dimensions()`` is the first operand's aval's shape;
    ``tuple(shape for _ in args)`` gives every operand the same row-major layout."""
    from tests.compat.custom_calls import custom_calls

    result = _rewrite("shape_list_indexed_and_repeated_layout.py")
    assert result.error is None and not [c for c in result.changes if c.safety is not Safety.SAFE]
    path = tmp_path / "rewritten_contact_points.py"
    path.write_bytes(result.updated)
    (call,) = custom_calls(lower_entry(load_module(str(path)), "compat_entry"))
    assert call["target"] == "contact_points" and call["api_version"] == 1
    assert call["operand_types"] == ["tensor<i32>"] + ["tensor<2x3xf32>"] * 3
    assert call["result_types"] == ["tensor<2x3xf32>", "tensor<2x3xi32>"]
    assert call["operand_layouts"] == [[]] + [[1, 0]] * 3 and call["result_layouts"] == [[1, 0], [1, 0]]


def test_create_token_lambda_lowers_to_a_stablehlo_token() -> None:
    """``lambda c, _: ops.CreateToken(c)`` becomes a lowering rule building the same token:
    the rewritten module runs on the installed jax, and the jitted primitive yields a
    ``!stablehlo.token`` made by ``stablehlo.create_token`` (as ``lax.create_token`` does)."""
    import jax
    from jax._src import core as jax_core

    path = os.path.join(FOLDER, "create_token_lambda.py")
    with open(path, "rb") as fh:
        result = rewrite_source(fh.read(), path, [])  # every rule, as `ccmigrate apply` runs
    assert result.error is None and result.updated is not None
    namespace: dict = {"__name__": "migrated_create_token"}
    exec(compile(result.updated, path, "exec"), namespace)
    prim = namespace["make_token_p"]
    prim.def_abstract_eval(lambda _: jax_core.abstract_token)
    text = jax.jit(namespace["make_token"]).lower(np.float32(1.0)).as_text()
    main = text.split("func.func public @main")[1]
    assert main.count("stablehlo.create_token : !stablehlo.token") == 1
    assert "-> (!stablehlo.token" in main  # the primitive's result is that token


_BRIDGE = (
    b"import numpy as np\n"
    b"from jax.extend.core import Primitive\n"
    b"from jax.interpreters import xla\n"
    b"from jax.lib import xla_client\n\n"
    b"p = Primitive('p')\n\n\n"
    b"def rule(c, *args):\n"
    b"    shapes = [c.get_shape(a) for a in args]\n"
    b"    dims = tuple(s.dimensions() for s in shapes)\n"
    b"%s"
    b"    out = xla_client.Shape.tuple_shape([xla_client.Shape.array_shape(np.dtype('float32'), dims[0], (1, 0))])\n"
    b"    return xla_client.ops.CustomCallWithLayout(c, b'k', operands=args, shape_with_layout=out,\n"
    b"                                               operand_shapes_with_layout=shapes)\n\n\n"
    b"xla.backend_specific_translations['cpu'][p] = rule\n"
)


@pytest.mark.parametrize("nested, converted", [
    # Plain dimensions and module names: the function is left as it is.
    (b"    def kernel(out, ins):\n        return dims, np.float32\n", True),
    # The builder, a builder shape, an operand: the rewrite changes what it would read.
    (b"    def kernel(out, ins):\n        return c\n", False),
    (b"    def kernel(out, ins):\n        return shapes[0].dimensions()\n", False),
    (b"    def kernel(out, ins):\n        return args\n", False),
    (b"    def kernel(out, ins):\n        return xla_client.Shape.array_shape(np.float32, (1,), (0,))\n", False),
])
def test_a_nested_function_stays_only_when_it_reads_nothing_the_rewrite_changes(nested: bytes, converted: bool) -> None:
    result = rewrite_source(_BRIDGE % nested, "m.py", ["--select", "xla-translation-rule"])
    manual = [c.message for c in result.changes if c.safety is Safety.MANUAL]
    assert (result.updated is not None and not manual) is converted, manual
    if converted:
        # A tuple of one shape keeps its tuple result, and its layouts.
        text = result.updated.decode()
        assert "return _ccmigrate_tuple_lowering(\n" in text and "out = [(1, 0)]" in text and "result_layouts=out" in text
        # The operands' own shapes as their layouts: the default, None.
        assert "operand_layouts=None" in text
    else:
        assert any("it defines a nested function" in m for m in manual), manual


@pytest.mark.parametrize("body, converted", [
    (b"    if DEBUG:\n        print('no GPU kernel')\n    raise RuntimeError('CPU only')\n", True),
    # It reads the builder before raising: what it does with it has no MLIR counterpart.
    (b"    if c is None:\n        print('no builder')\n    raise RuntimeError('CPU only')\n", False),
    # It may return: not a stub.
    (b"    if DEBUG:\n        return None\n    raise RuntimeError('CPU only')\n", False),
])
def test_a_rule_that_cannot_return_raises_the_same_as_a_lowering_rule(body: bytes, converted: bool) -> None:
    source = (b"from jax.extend.core import Primitive\nfrom jax.interpreters import xla\n\nDEBUG = False\n"
              b"p = Primitive('p')\n\n\ndef gpu_rule(c, *args):\n" + body +
              b"\n\nxla.backend_specific_translations['gpu'][p] = gpu_rule\n")
    result = rewrite_source(source, "m.py", ["--select", "xla-translation-rule"])
    manual = [c for c in result.changes if c.safety is Safety.MANUAL]
    assert (not manual) is converted, [c.message for c in manual]
    if converted:
        assert "def gpu_rule(ctx, *operands, **params):" in result.updated.decode()


def test_a_tuple_of_one_result_stays_a_tuple_with_builder_ops_around_the_call() -> None:
    """The KLU-style rule (Reshape/Transpose around the call) with its result declared as a
    tuple of one shape: the custom call keeps the one-element tuple, layouts included."""
    import jax
    from jax import core

    with open(os.path.join(FOLDER, "builder_ops_decorator.py")) as fh:
        source = fh.read()
    source = source.replace("shape_with_layout=b_shape,", "shape_with_layout=xla_client.Shape.tuple_shape((b_shape,)),")
    source = source[:source.index("    result = xla_client.ops.Reshape(result, (n_batch")] + source[source.index("    return result"):]
    source += "\ntri_solve_f32.multiple_results = True\n"
    result = rewrite_source(source.encode(), "m.py", ["--select", "xla-translation-rule"])
    assert result.updated is not None and "_ccmigrate_tuple_lowering(" in result.updated.decode()
    namespace: dict = {"__name__": "m"}
    exec(compile(result.updated, "m.py", "exec"), namespace)
    prim = namespace["tri_solve_f32"]
    prim.def_abstract_eval(lambda a, b: [core.ShapedArray((b.size,), b.dtype)])
    a, b = jax.ShapeDtypeStruct((3, 3), np.float32), jax.ShapeDtypeStruct((3, 2), np.float32)
    text = jax.jit(lambda a, b: prim.bind(a, b)).trace(a, b).lower(lowering_platforms=("cpu",)).as_text()
    assert "result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<i32>, tensor<9xf32>, tensor<6xf32>) -> tuple<tensor<6xf32>>" in text
    assert "stablehlo.get_tuple_element" in text


def test_the_aval_helper_may_import_shapedarray_itself() -> None:
    """jambax's ``_xla_shape_to_abstract`` with its import inside: still the aval (the
    first pass would leave the rule manual and a second one convert it)."""
    with open(os.path.join(FOLDER, "python_kernel_bridge.py")) as fh:
        source = fh.read()
    helper = "def _xla_shape_to_abstract(xla_shape):\n"
    source = source.replace(helper, helper + "    from jax.abstract_arrays import ShapedArray\n")
    result = rewrite_source(source.encode(), "m.py", ["--select", "xla-translation-rule"])
    assert not [c.message for c in result.changes if c.safety is Safety.MANUAL]
    assert "abstract_eval_fn(*[jax.core.ShapedArray(shape.shape, shape.dtype) for shape in input_shapes])" in result.updated.decode()


def test_a_reused_shape_name_and_a_tuple_of_the_star_operands_are_the_bridge_as_before() -> None:
    """BrainPy's numba bridge: ``shapes = [Shape.array_shape(*a) for a in zip(...)]`` then
    ``shapes = Shape.tuple_shape(shapes)`` under the same name, and ``operands=tuple(ins)``.
    The binding that reaches the custom call is the tuple shape, so its one-result tuple
    stays a tuple (the kernel finds its outputs through the tuple's table), and the
    operands are ``*ins``: the rewrite is the one the fixture's own spelling gets, which
    tests/test_rewrite_lowering.py runs under jit."""
    with open(os.path.join(FOLDER, "python_kernel_bridge.py")) as fh:
        source = fh.read()
    reused = (source.replace("    xla_output_shape = xla_client.Shape.tuple_shape(xla_output_shapes)\n",
                             "    xla_output_shapes = xla_client.Shape.tuple_shape(xla_output_shapes)\n")
              .replace("shape_with_layout=xla_output_shape,", "shape_with_layout=xla_output_shapes,")
              .replace("operands=args,", "operands=tuple(args),"))
    assert reused.count("xla_output_shapes = ") == 2 and "operands=tuple(args)" in reused
    result = rewrite_source(reused.encode(), "m.py")
    assert not [c.message for c in result.changes if c.safety is Safety.MANUAL]
    with open(os.path.join(FOLDER, "python_kernel_bridge.expected.py")) as fh:
        assert result.updated.decode() == fh.read()


def test_a_module_guarding_its_import_and_importing_again_in_a_rule_is_still_read() -> None:
    """``try: from jax.interpreters import xla`` / ``except ImportError: xla = None`` at module
    level and the same import again inside the rule (found by the fuzzer): the module's
    ``xla.translations[...]`` is jax's, and reported, not passed over as unknown."""
    with open(os.path.join(FOLDER, "lower_fun_local_import_manual.py")) as fh:
        source = fh.read()
    source = source.replace("from jax.interpreters import xla\n",
                            "try:\n    from jax.interpreters import xla\nexcept ImportError:\n    xla = None\n", 1)
    assert source.count("xla = None") == 1
    result = rewrite_source(source.encode(), "m.py", ["--select", "xla-translation-rule"])
    lines = {c.line for c in result.changes if c.safety is Safety.MANUAL}
    registration = source.splitlines().index("xla.translations[shared_p] = _shared_rule") + 1
    assert registration in lines, [(c.line, c.message[:80]) for c in result.changes]


def test_numpy_dtype_of_a_builder_shape_is_the_aval_dtype(tmp_path) -> None:
    """Shape.numpy_dtype() gave the dtype element_type() gave: with dimensions() it becomes
    the aval's, and the layout-less ops.CustomCall lowers with no layouts, api_version 1."""
    from tests.compat.custom_calls import custom_calls

    result = _rewrite("numpy_dtype_shapes.py")
    assert any(c.message == "Shape.numpy_dtype() -> aval.dtype" for c in result.changes)
    module = _rewritten_module(tmp_path, "numpy_dtype_shapes.py")
    (call,) = custom_calls(lower_entry(module, "compat_entry"))
    assert call["target"] == "native_add" and call["api_version"] == 1 and call["backend_config"] is None
    assert call["operand_types"] == ["tensor<2x3xf32>"] * 2 and call["result_types"] == ["tensor<2x3xf32>"]
    assert call["operand_layouts"] is None and call["result_layouts"] is None


@pytest.mark.parametrize("operands, shapes, reason", [
    (b"(a,)", b"(s, s)", "it gives 1 operand(s) but 2 operand shape(s)"),
    (b"tuple()", b"(s,)", "it gives 0 operand(s) but 1 operand shape(s)"),
])
def test_operand_and_shape_counts_that_differ_stay_manual(operands: bytes, shapes: bytes, reason: str) -> None:
    # XlaBuilder (checked on jax 0.4.28) raised INVALID_ARGUMENT "Must specify a shape with
    # layout for each operand": the rule never built, so no layout is known to carry over.
    source = (b"import numpy as np\nfrom jax.interpreters import xla\nfrom jax.lib import xla_client\n\n\n"
              b"def rule(c, a):\n    s = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))\n"
              b"    return xla_client.ops.CustomCallWithLayout(c, b'k', operands=" + operands +
              b", shape_with_layout=s, operand_shapes_with_layout=" + shapes + b")\n\n\n"
              b"xla.backend_specific_translations['cpu'][p] = rule\n")
    result = rewrite_source(source, "count_mismatch.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    messages = [c.message for c in result.changes if c.safety is Safety.MANUAL]
    assert any(reason in m and "INVALID_ARGUMENT" in m for m in messages), messages


def test_reason_of_a_rule_without_custom_call_is_the_same_once_the_module_is_migrated() -> None:
    # The first run migrates `solve_rule`, the module's last use of xla_client; `shape_rule`
    # stays manual for what it reads itself, so the note --annotate writes above it is the
    # one a second run would write (the module-level reason came first and changed).
    source = (b"import numpy as np\nfrom jax.interpreters import xla\nfrom jax.lib import xla_client\n\n\n"
              b"def solve_rule(ctx, avals_in, avals_out, a):\n"
              b"    s = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))\n"
              b"    return [xla_client.ops.CustomCallWithLayout(ctx.builder, b'k', operands=(a,), shape_with_layout=s,\n"
              b"                                                operand_shapes_with_layout=(s,))]\n\n\n"
              b"def shape_rule(ctx, avals_in, avals_out, a):\n    c = ctx.builder\n    return [a]\n\n\n"
              b"xla.register_translation(solve_p, solve_rule, platform='cpu')\n"
              b"xla.register_translation(shape_p, shape_rule, platform='cpu')\n")
    first = rewrite_source(source, "two_rules.py", ["--select", "xla-translation-rule", "--annotate"])
    assert first.error is None and first.updated is not None
    assert b"(it builds no xla_client.ops custom call, and it reads `ctx` other than to delete it)" in first.updated
    again = rewrite_source(first.updated, "two_rules.py", ["--select", "xla-translation-rule", "--annotate"])
    assert again.error is None and again.updated is None


def test_a_builder_rule_registered_as_an_mlir_lowering_says_it_never_lowered() -> None:
    """Half a migration (envpool forks): the XlaBuilder rule kept, its registration changed
    to ``mlir.register_lowering``, which hands it the lowering context: it never lowered, so
    it is reported as such, with the registration's line, and left alone."""
    source = b"""import numpy as np
from jax.interpreters import mlir
from jax.lib import xla_client


def make(prim, handle):
    def translation(c, *args, platform="cpu"):
        s = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))
        return xla_client.ops.CustomCallWithLayout(c, b"k", operands=args, shape_with_layout=s,
                                                   operand_shapes_with_layout=(s,), opaque=handle)

    mlir.register_lowering(prim, translation)
"""
    result = rewrite_source(source, "half_migrated.py", ["--select", "xla-translation-rule"])
    assert result.updated is None
    (call,) = [c for c in result.changes if c.line == 9]
    assert call.safety is Safety.MANUAL
    assert ("`translation`, the function it is in, builds XLA ops on an XlaBuilder but is registered with "
            "mlir.register_lowering (line 12)") in call.message, call.message


def test_a_builder_rule_handing_its_operand_back_lowers_to_that_operand(tmp_path) -> None:
    """tessellate-ipu's no-op CPU/GPU rule ``return xc``: the lowering rule returns ``[xc]``,
    the primitive lowers to nothing of its own (the function returns its argument) and
    runs; a builder rule returning a primitive parameter stays manual."""
    import jax

    module = _rewritten_module(tmp_path, "passthrough_builder_rule.py")
    text = str(lower_entry(module, "compat_entry"))
    assert "custom_call" not in text and "return %arg0" in text, text
    function, args = module.compat_entry()
    np.testing.assert_array_equal(np.asarray(jax.jit(function)(*args)), args[0])
    with open(os.path.join(FOLDER, "passthrough_builder_rule.py")) as fh:
        source = fh.read().replace("    return xc\n", "    return tiles\n")
    result = rewrite_source(source.encode(), "m.py", ["--select", "xla-translation-rule"])
    assert result.updated is None and any(c.safety is Safety.MANUAL for c in result.changes)


_UNDER_FLAG = b'''import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

_HAVE_MPI = True

if _HAVE_MPI:
    _ops = xla_client.ops
    count_p = Primitive("count_inplace")
    count_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))

    # Helpers
    def _constant_s32_scalar(c, x):
        return _ops.Constant(c, np.int32(x))

    def _encode(c, x):
        dims = c.get_shape(x).dimensions()
        return _ops.CustomCall(
            c,
            b"count_f32",
            operands=(xla_client.ops.Constant(c, np.int32(dims[0])), x),
            shape=xla_client.Shape.array_shape(np.dtype(np.float32), dims),
        )

    xla.backend_specific_translations["cpu"][count_p] = _encode


def compat_entry():
    return count_p.bind, (np.ones((4,), np.float32),)
'''


def test_an_uncalled_constant_helper_under_a_module_level_if_goes_with_its_rule(tmp_path) -> None:
    """netket's MPI code sits under ``if jax_available:``; the copied constant helper nothing
    calls there is dead like a top-level one, and kept it would keep xla_client imported."""
    result = rewrite_source(_UNDER_FLAG, "under_flag.py", ["--select", "xla-translation-rule"])
    assert result.error is None and result.updated is not None
    assert [c.message for c in result.changes if c.safety is not Safety.SAFE] == []
    assert b"_constant_s32_scalar" not in result.updated and b"xla_client" not in result.updated
    assert b"    # Helpers\n" not in result.updated  # the helper's comment goes with it
    path = tmp_path / "rewritten_under_flag.py"
    path.write_bytes(result.updated)
    (call,) = custom_calls(lower_entry(load_module(str(path)), "compat_entry"))
    assert call["target"] == "count_f32" and call["api_version"] == 1
    assert call["operand_types"] == ["tensor<i32>", "tensor<4xf32>"]
