"""token-type's rewrites lower on the installed jax into the custom call the legacy code
emitted on jax <= 0.4.30.

The mpi4jax-style fixture is migrated with every rule (token-type and custom-call-api edit
the same calls), executed as a module and lowered for CPU with a real ordered-effect token
threaded through the primitive. The legacy source runs too, against what those releases
provided: ``token_type()`` returning ``[TokenType]`` and the ``hlo_helpers`` builder. Both
emit the same ``stablehlo.custom_call`` (target, operands, layouts, result types with one
``!stablehlo.token``), read through the MLIR Python API.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import types

import numpy as np
import pytest

jax = pytest.importorskip("jax")
from jax._src import core as jax_core  # noqa: E402
from jax._src.interpreters import mlir as private_mlir  # noqa: E402
from jax.extend.core import Primitive  # noqa: E402
from jax.extend.mlir import ir  # noqa: E402
from jax.extend.mlir.dialects import stablehlo  # noqa: E402
from jax.interpreters import mlir  # noqa: E402

from codemods.rule import Safety  # noqa: E402
from tests.helpers import TESTDATA, rewrite_source  # noqa: E402
from tests.test_api_rules_lowering import hlo_helpers_custom_call, read  # noqa: E402

FIXTURE = os.path.join(TESTDATA, "rules", "token-type", "mpi_collectives.py")
_ids = itertools.count()


@contextlib.contextmanager
def compat_module(**names):
    """The fixture's ``jax_compat`` re-export module, as the jax release in question had it."""
    saved = sys.modules.get("jax_compat")
    sys.modules["jax_compat"] = types.SimpleNamespace(**names)
    try:
        yield
    finally:
        if saved is None:
            sys.modules.pop("jax_compat", None)
        else:
            sys.modules["jax_compat"] = saved


def load(source: bytes, name: str, **compat) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = FIXTURE
    with compat_module(**compat):
        exec(compile(source, FIXTURE, "exec"), module.__dict__)
    return module


@pytest.fixture(scope="module")
def migrated_source() -> bytes:
    with open(FIXTURE, "rb") as fh:
        result = rewrite_source(fh.read(), FIXTURE)  # every rule, as `ccmigrate apply` runs them
    assert result.error is None, result.error
    assert {c.rule for c in result.changes if c.applied} >= {"token-type", "custom-call-api"}
    return result.updated


@pytest.fixture(scope="module")
def modules(migrated_source):
    with open(FIXTURE, "rb") as fh:
        legacy_source = fh.read()
    migrated = load(migrated_source, "migrated_mpi", token_type=private_mlir.token_type)
    legacy = load(legacy_source, "legacy_mpi", token_type=lambda: [private_mlir.token_type()],
                  hlo_custom_call=hlo_helpers_custom_call)
    return migrated, legacy


def lower_with_token(rule_fn, shape, **params):
    """Lower a primitive taking (array?, token) and giving (array?, token), with a real token."""
    prim = Primitive(f"ccmigrate_token_case_{next(_ids)}")
    prim.multiple_results = True
    if shape is None:
        prim.def_abstract_eval(lambda token, **kw: [jax_core.abstract_token])
    else:
        prim.def_abstract_eval(lambda x, token, **kw: [jax_core.ShapedArray(x.shape, x.dtype), jax_core.abstract_token])
    mlir.register_lowering(prim, rule_fn, platform="cpu")

    def fn(*xs):
        outs = prim.bind(*xs, jax.lax.create_token(), **params)
        return outs[0]  # an array, or the token: either keeps the call from being dropped

    specs = [jax.ShapeDtypeStruct(shape, np.float32)] if shape is not None else []
    module = jax.jit(fn).trace(*specs).lower(lowering_platforms=("cpu",)).compiler_ir("stablehlo")
    calls = []
    with module.context:
        for op in _walk(module.operation):
            if op.name == "stablehlo.custom_call":
                call = read(op)
                call["operand_types"] = [_type_name(v.type) for v in op.operands]
                call["result_types"] = [_type_name(r.type) for r in op.results]
                calls.append(call)
    return calls


def _walk(op):
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield child.operation
                yield from _walk(child.operation)


def _type_name(t) -> str:
    if stablehlo.TokenType.isinstance(t):
        return "token"
    tensor = ir.RankedTensorType(t)
    return f"{tuple(tensor.shape)}:{tensor.element_type}"


def lower_both(modules, function, shape, **params):
    migrated, legacy = modules
    (new,) = lower_with_token(getattr(migrated, function), shape, **params)
    (old,) = lower_with_token(getattr(legacy, function), shape, **params)
    assert new == old
    return new


def test_unpacked_token_type_in_gather_result_types(modules):
    call = lower_both(modules, "mpi_gather_xla_encode_cpu", (4, 3), root=0, comm_handle=7)
    assert call["target"] == "mpi_gather"
    assert call["has_side_effect"] is True
    assert call["operand_types"] == ["():i32", "():ui64", "(4, 3):f32", "token"]
    assert call["result_types"] == ["(4, 3):f32", "token"]
    assert call["operand_layouts"] == [[], [], [1, 0], []]
    assert call["result_layouts"] == [[1, 0], []]
    assert call["constant_operands"][:2] == [np.intc(0).tobytes(), np.uintp(7).tobytes()]


def test_assigned_token_type_as_barrier_result_types(modules):
    call = lower_both(modules, "mpi_barrier_xla_encode_cpu", None, comm_handle=7)
    assert call["target"] == "mpi_barrier"
    assert call["operand_types"] == ["():ui64", "token"]
    assert call["result_types"] == ["token"]
    assert call["operand_layouts"] == [[], []]
    assert call["result_layouts"] == [[]]


def test_token_type_passed_as_out_types(modules):
    call = lower_both(modules, "mpi_flush_xla_encode_cpu", None)
    assert call["target"] == "mpi_flush"
    assert call["operand_types"] == ["token"]
    assert call["result_types"] == ["token"]
    assert (call["operand_layouts"], call["result_layouts"]) == ([[]], [[]])


def test_migrated_text_holds_no_list_spelling(migrated_source):
    text = migrated_source.decode()
    assert "*token_type()" not in text and "token_type()[0]" not in text
    assert "result_types=[token_type()]" in text


WALRUS = (b"from jax.interpreters import mlir\n\n\n"
          b"def layouts(ctx):\n"
          b"    (token := mlir.token_type()[0])\n"
          b"    (types := mlir.token_type())\n"
          b"    return token, [*types], (other := mlir.token_type())\n")


def test_a_walrus_statement_is_read_as_the_assignment_it_is():
    """``(t := token_type())`` alone on its line binds like ``t = token_type()``: its reads
    decide, so the first pass's own output (``(token := token_type())`` from ``[0]``) is
    not reported again on a second pass. A walrus whose value is used elsewhere is not
    an assignment alone: that one stays manual."""
    result = rewrite_source(WALRUS, "m.py", ["--select", "token-type"])
    assert result.error is None, result.error
    assert result.updated.decode().splitlines()[4:7] == [
        "    (token := mlir.token_type())",
        "    (types := [mlir.token_type()])",
        "    return token, [*types], (other := mlir.token_type())",
    ]
    assert [(c.line, c.safety) for c in result.changes] == [(5, Safety.SAFE), (6, Safety.SAFE), (7, Safety.MANUAL)]
    again = rewrite_source(result.updated, "m.py", ["--select", "token-type"])
    assert again.updated is None and [(c.line, c.safety) for c in again.changes] == [(7, Safety.MANUAL)]


def test_a_name_bound_by_token_type_each_time_is_read_as_one_binding() -> None:
    """``tok = token_type()`` written twice (a branch, or a repeated line) gives the same
    value each time: the reads decide for both, and a second pass over the rewrite of the
    unpacked form finds nothing more (with --annotate it used to add TODOs: "bound more
    than once")."""
    unpacked = (b"from jax.interpreters.mlir import token_type\n\n\ndef rule(ctx, x):\n"
                b"    tok, = token_type()\n    if x:\n        tok, = token_type()\n    return tok, x\n")
    first = rewrite_source(unpacked, "m.py", ["--annotate"])
    assert first.updated.count(b"tok = token_type()") == 2 and b"TODO" not in first.updated
    again = rewrite_source(first.updated, "m.py", ["--annotate"])
    assert again.updated in (None, first.updated) and again.changes == []
    as_list = (b"from jax.interpreters.mlir import token_type\n\n\ndef rule(ctx, x):\n"
               b"    tok = token_type()\n    if x:\n        tok = token_type()\n    return list(tok)\n")
    wrapped = rewrite_source(as_list, "m.py", [])
    assert wrapped.updated.count(b"tok = [token_type()]") == 2
    assert [c.safety for c in wrapped.changes] == [Safety.SAFE, Safety.SAFE]
