"""A rule's triggers are the cheap text test that decides whether it runs on a file: they
must hold for every spelling the rule rewrites, also through an alias imported beside
other names (both found on real code by ``benchmarks/fuzz.py --seed-dir``)."""

from codemods.rule import Safety
from tests.helpers import rewrite_source


def test_core_primitive_through_an_alias_imported_beside_another_module() -> None:
    source = (b"from jax import abstract_arrays, core as core_alias\n\n"
              b"solve_p = core_alias.Primitive('solve')\nx = abstract_arrays.ShapedArray((1,), 'float32')\n")
    result = rewrite_source(source, "m.py")
    assert result.error is None
    assert b"solve_p = Primitive('solve')" in result.updated and b"from jax.extend.core import Primitive" in result.updated
    assert {c.rule for c in result.changes} == {"core-primitive", "removed-jax-api"}
    assert all(c.safety is Safety.SAFE for c in result.changes)
    assert rewrite_source(result.updated, "m.py").updated is None


def test_jax_extend_ffi_through_an_alias_imported_beside_another_module() -> None:
    source = (b"import jax\nfrom jax import numpy as jnp, extend as jex\n\n\ndef f(x):\n"
              b"    return jex.ffi.ffi_call('t', jax.ShapeDtypeStruct(x.shape, x.dtype))(jnp.asarray(x))\n")
    result = rewrite_source(source, "m.py")
    assert result.updated == (b"import jax\nfrom jax import numpy as jnp\n\n\ndef f(x):\n"
                              b"    return jax.ffi.ffi_call('t', jax.ShapeDtypeStruct(x.shape, x.dtype))(jnp.asarray(x))\n")
    assert [c.rule for c in result.changes] == ["jax-extend-ffi"]
