"""mlir-isinstance: the rewritten tests give, on the installed jax, the answers the
bindings' static ``isinstance`` gave.

``static_isinstance_jax_0_7_2.json`` records, for builtin types and attributes parsed
on jax 0.7.2, every class of ``ir`` whose ``X.isinstance`` held. A module testing each
class the legacy way is rewritten by the rule, executed, and asked the same questions
about the same objects parsed on the installed jax; a second variant hands each type
through an explicit ``ir.Type(...)`` cast, the case the rewrite downcasts.
"""

from __future__ import annotations

import json
import os

import pytest

jax = pytest.importorskip("jax")
from jax._src.lib.mlir import ir  # noqa: E402
from jax.interpreters import mlir  # noqa: E402

from codemods.rules.mlir_isinstance import ATTRIBUTES, TYPES  # noqa: E402
from tests.helpers import TESTDATA, rewrite_source  # noqa: E402

TRUTH = os.path.join(TESTDATA, "rules", "mlir-isinstance", "static_isinstance_jax_0_7_2.json")


def _legacy_module() -> str:
    lines = ["from jax._src.lib.mlir import ir", ""]
    for cls in sorted(TYPES | ATTRIBUTES):
        lines += [f"def plain_{cls}(x):", f"    return ir.{cls}.isinstance(x)", ""]
    for cls in sorted(TYPES):
        lines += [f"def cast_{cls}(x):", f"    return ir.{cls}.isinstance(ir.Type(x))", ""]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def rewritten():
    path = os.path.join(TESTDATA, "rules", "mlir-isinstance", "generated.py")
    result = rewrite_source(_legacy_module().encode(), path, ["--select", "mlir-isinstance"])
    assert result.error is None, result.error
    assert b".isinstance(" not in result.updated
    namespace: dict = {}
    exec(compile(result.updated, path, "exec"), namespace)
    return namespace


def test_rewritten_tests_answer_as_the_static_method_did(rewritten) -> None:
    with open(TRUTH) as fh:
        truth = json.load(fh)
    wrong = []
    with mlir.make_ir_context() as context, ir.Location.unknown():
        context.allow_unregistered_dialects = True
        for kind, parse, classes in (("types", ir.Type.parse, TYPES), ("attributes", ir.Attribute.parse, ATTRIBUTES)):
            for text, held in truth[kind].items():
                obj = parse(text)
                for cls in sorted(classes):
                    if rewritten[f"plain_{cls}"](obj) != (cls in held):
                        wrong.append((text, cls, "plain"))
                    if kind == "types" and rewritten[f"cast_{cls}"](obj) != (cls in held):
                        wrong.append((text, cls, "cast"))
    assert wrong == []


def test_the_static_method_is_gone_from_the_installed_bindings() -> None:
    """The rule's premise, on the jax the suite runs with (jaxlib >= 0.9.0)."""
    if jax.__version_info__ < (0, 9, 0):
        pytest.skip("bindings before jaxlib 0.9.0 still have it")
    assert not [cls for cls in TYPES | ATTRIBUTES if hasattr(getattr(ir, cls), "isinstance")]
