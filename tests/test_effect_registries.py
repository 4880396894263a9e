"""effect-registries: the rewritten registrations import on the installed jax, and a
primitive carrying the registered effect lowers inside jit and a loop (an unregistered one
does not)."""

from __future__ import annotations

import importlib.util
import os

import pytest

from codemods.rule import Safety
from tests.helpers import TESTDATA, rewrite_source

jax = pytest.importorskip("jax")

CASES = os.path.join(TESTDATA, "rules", "effect-registries")


def _load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _effectful(register, name: str):
    """A primitive whose abstract eval (registered by ``register``) carries the effect."""
    from jax.extend.core import Primitive
    from jax.interpreters import mlir

    prim = Primitive(name)
    prim.def_impl(lambda x: x)
    register(prim, lambda x: x)
    mlir.register_lowering(prim, lambda ctx, x: [x])
    return prim


def test_the_legacy_module_fails_to_import_and_the_rewrite_registers_by_type(tmp_path) -> None:
    with pytest.raises(AttributeError):
        _load(os.path.join(CASES, "mpi_effect.py"), "legacy_mpi_effect")
    module = _load(os.path.join(CASES, "mpi_effect.expected.py"), "migrated_mpi_effect")
    from jax._src import effects

    for registry in (effects.lowerable_effects, effects.control_flow_allowed_effects,
                     effects.custom_derivatives_allowed_effects):
        assert registry.contains(module.effect)
    prim = _effectful(module.register_abstract_eval, "mpi_effect_test")
    x = jax.numpy.ones(3)
    text = jax.jit(lambda a: prim.bind(a)).lower(x).as_text()
    assert "func.func public @main" in text
    # Inside a loop: what control_flow_allowed_effects admits.
    jax.jit(lambda a: jax.lax.fori_loop(0, 2, lambda i, c: prim.bind(c), a)).lower(x)


def test_an_unregistered_effect_does_not_lower() -> None:
    """The check above would pass vacuously if jax lowered any effect."""
    class Unregistered:
        pass

    effect = Unregistered()

    def register(primitive, func):
        primitive.def_effectful_abstract_eval(lambda *a, **k: (func(*a, **k), {effect}))

    prim = _effectful(register, "unregistered_effect_test")
    with pytest.raises(Exception, match="effect"):
        jax.jit(lambda a: prim.bind(a)).lower(jax.numpy.ones(3))


def test_an_enum_member_is_registered_by_its_type_only_as_an_unsafe_fix() -> None:
    with open(os.path.join(CASES, "debug_effects.py"), "rb") as fh:
        source = fh.read()
    safe = rewrite_source(source, "m.py", ["--select", "effect-registries"])
    assert safe.updated is None
    # Without --unsafe-fixes the sites stay: manual findings that name the fix on offer
    # (every reference left to a gone registry is in the report as manual).
    assert [(c.safety, c.applied) for c in safe.changes] == [(Safety.MANUAL, False)] * 4
    assert "registering type(DebugEffect.ORDERED_PRINT) would admit every value of that type" in safe.changes[0].message
    assert "`add_type(type(DebugEffect.ORDERED_PRINT))` is applied with --unsafe-fixes" in safe.changes[0].message
    unsafe = rewrite_source(source, "m.py", ["--select", "effect-registries", "--unsafe-fixes"])
    assert [(c.safety, c.applied) for c in unsafe.changes] == [(Safety.UNSAFE, True)] * 3 + [(Safety.MANUAL, False)]
    assert b"effects.ordered_effects.add_type(type(DebugEffect.ORDERED_PRINT))" in unsafe.updated
    assert "this one as effects.control_flow_allowed_effects" in unsafe.changes[3].message


def test_a_guarded_registration_is_reported_and_kept() -> None:
    source = (b"import jax\nfrom jax.interpreters import mlir\n\n\nclass E:\n    pass\n\n\n"
              b"if jax.__version_info__ < (0, 4, 0):\n    mlir.lowerable_effects.add(E())\n")
    result = rewrite_source(source, "m.py", ["--select", "effect-registries"])
    assert result.updated is None
    assert [(c.line, c.safety) for c in result.changes] == [(10, Safety.MANUAL)]
    assert "inside the compatibility guard `if jax < 0.4.0`" in result.changes[0].message


@pytest.mark.parametrize("value, safety", [
    ("E()", Safety.SAFE),
    ("effect", Safety.SAFE),
    ("other", Safety.UNSAFE),  # bound twice: which instance is registered is not known here
    ("F()", Safety.UNSAFE),  # a class of another module
])
def test_only_an_instance_of_a_class_of_the_module_is_safe(value, safety) -> None:
    source = (b"from jax.interpreters import mlir\nfrom m2 import F\n\n\nclass E:\n    pass\n\n\n"
              b"effect = E()\nother = E()\nother = F()\n" + f"mlir.lowerable_effects.add({value})\n".encode())
    result = rewrite_source(source, "m.py", ["--select", "effect-registries", "--unsafe-fixes"])
    assert [(c.safety, c.applied) for c in result.changes] == [(safety, True)]
    default = rewrite_source(source, "m.py", ["--select", "effect-registries"])
    assert [(c.safety, c.applied) for c in default.changes] == [
        (Safety.SAFE, True) if safety is Safety.SAFE else (Safety.MANUAL, False)]
