"""jax-util: the definitions written into a module behave as jax.util's helpers did.

jax still keeps private copies of most of them (``jax._src.util``): each definition is
run beside its copy on the same inputs, failures included. ``split_dict`` and
``split_merge`` have no copy left; they are checked against what they did.
"""

from __future__ import annotations

import functools
import os
import types

import pytest

from codemods.rules.jax_util import HELPERS, _definition
from tests.helpers import TESTDATA, rewrite_source

jax = pytest.importorskip("jax")
from jax._src import util as private  # noqa: E402

FIXTURES = os.path.join(TESTDATA, "rules", "jax-util")


def _defined(name: str, local: str | None = None):
    namespace: dict = {}
    exec(compile(_definition(name, local or name), f"<{name}>", "exec"), namespace)
    return namespace[local or name]


def _outcome(f, *args):
    try:
        return "ok", f(*args)
    except Exception as error:  # noqa: BLE001 - the kind of failure is what is compared
        return "raised", type(error)


class Once(list):
    """Handed to each side as a fresh iterator over these items."""


SAMPLES = {
    "safe_map": [(lambda a, b: a * b, [1, 2, 3], (4, 5, 6)), (str, range(3)), (lambda a: a, Once([7, 8])),
                 (lambda a, b: a, [1], [1, 2]), (lambda: 1,), (lambda a, b: a, [], [])],
    "safe_zip": [([1, 2], "ab"), (range(3), range(3), range(3)), ([1], [1, 2]), (), ([],)],
    "unzip2": [([(1, "a"), (2, "b")],), ([],), (Once([(1, 2)]),), ([(1, 2, 3)],)],
    "unzip3": [([(1, 2, 3), (4, 5, 6)],), ([],), ([(1, 2)],)],
    "split_list": [([1, 2, 3, 4, 5], [2, 1]), ((1, 2), [0, 0]), ([1, 2], [3]), (range(4), [])],
    "subvals": [([1, 2, 3], [(0, "x"), (2, "y")]), ((1,), []), ([1], [(3, 0)])],
    "concatenate": [([[1, 2], (3,), []],), ([],)],
    "partition_list": [([True, False, True], ["a", "b", "c"]), ([], []), ([True], [1, 2])],
    "merge_lists": [([True, False, True], ["b"], ["a", "c"]), ([], [], []), ([True], [1], [2])],
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_definition_behaves_as_jaxs_private_copy(name: str) -> None:
    ours, theirs = _defined(name), getattr(private, name)
    for args in SAMPLES[name]:
        fresh = lambda: [iter(a) if isinstance(a, Once) else a for a in args]  # noqa: E731
        assert _outcome(ours, *fresh()) == _outcome(theirs, *fresh()), (name, args)


def test_split_dict_and_split_merge_do_what_they_did() -> None:
    split_dict = _defined("split_dict")
    assert split_dict({"a": 1, "b": 2}, ["b", "a"]) == [2, 1]
    with pytest.raises(AssertionError):
        split_dict({"a": 1, "b": 2}, ["a"])  # every key must be asked for
    split_merge = _defined("split_merge")
    evens, odds, merge = split_merge(lambda x: x % 2 == 0, [1, 2, 3, 4, 5])
    assert (evens, odds) == ([2, 4], [1, 3, 5])
    assert merge(["A", "B"], ["a", "b", "c"]) == ["a", "A", "b", "B", "c"]
    with pytest.raises(AssertionError):
        merge(["A", "B", "C"], ["a", "b", "c"])


def _decorated(wraps, wrapped, *args, **kwargs):
    def fun(x):
        return x

    fun.__dict__["seen"] = False
    out = wraps(wrapped, *args, **kwargs)(fun)
    return (out is fun, out.__name__, out.__qualname__, out.__module__, out.__doc__, out.__annotations__,
            getattr(out, "__wrapped__", None) is wrapped, {k: v for k, v in out.__dict__.items() if k != "__wrapped__"})


def test_wraps_names_and_documents_as_jaxs_private_copy() -> None:
    import functools

    ours, theirs = _defined("wraps"), private.wraps

    def scaled(x: float, factor: int = 2) -> float:
        """Scale x."""
        return x * factor

    scaled.tag = "kept"
    cases = [
        ((scaled,), {}),
        ((scaled,), {"docstr": "Vectorised {fun}: {doc} ({extra})", "extra": "batched"}),
        ((scaled, "vmap({fun})"), {}),
        ((functools.partial(scaled, factor=3),), {}),  # no __name__: the partial's function names it
        ((functools.partial(functools.partial(scaled), 1),), {"docstr": "{fun}"}),
        ((object(),), {"docstr": "{fun}{doc}"}),  # nothing to read: defaults
        ((scaled,), {"docstr": "{missing}"}),  # a failing format leaves the rest as it was
    ]
    for args, kwargs in cases:
        assert _decorated(ours, *args, **kwargs) == _decorated(theirs, *args, **kwargs), (args, kwargs)


def test_every_helper_is_tested() -> None:
    assert set(HELPERS) == set(SAMPLES) | {"split_dict", "split_merge", "wraps", "curry"}


def test_a_definition_under_another_name_does_not_call_itself_through_map() -> None:
    """``map = safe_map`` after the definition: its body must not read ``map``/``zip``."""
    source = _definition("safe_map", "safe_map") + _definition("safe_zip", "safe_zip") + "map = safe_map\nzip = safe_zip\n"
    namespace: dict = {}
    exec(compile(source, "<aliases>", "exec"), namespace)
    assert namespace["map"](lambda a, b: a + b, [1, 2], [3, 4]) == [4, 6]
    assert namespace["zip"]([1, 2], [3, 4]) == [(1, 3), (2, 4)]


def _rewritten_module(case: str) -> types.ModuleType:
    path = os.path.join(FIXTURES, case)
    with open(path, "rb") as fh:
        source = fh.read()
    result = rewrite_source(source, path, [])
    assert result.error is None and result.updated is not None
    module = types.ModuleType(case[:-3])
    exec(compile(result.updated, path, "exec"), module.__dict__)
    return module


def test_rewritten_jaxpr_interpreter_runs_on_the_installed_jax() -> None:
    import jax.numpy as jnp

    module = _rewritten_module("jaxpr_interpreter.py")

    def f(x, y):
        return jnp.sin(x) * y + 2.0, jnp.cumsum(x)

    x, y = jnp.arange(3.0), jnp.float32(1.5)
    got = module.interpret(f)(x, y)
    want = f(x, y)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert jnp.allclose(a, b)
    assert module.pairs_of([1, 2], "ab") == ((1, 2), ("a", "b"))
    with pytest.raises(ValueError):
        module.pairs_of([1, 2], "abc")


def test_moved_members_and_dotted_uses_work_after_the_rewrite() -> None:
    module = _rewritten_module("dotted_and_module_import.py")
    assert module.combine([1, 2], [3, 4])() == 10
    module = _rewritten_module("names_under_other_names.py")
    heads, rest, pairs = module.split_shapes([(2, 3), (4,), ()], [1])
    assert (heads, rest) == ([6], [4, 1])
    assert pairs == [((2, 3), 6), ((4,), 4), ((), 1)]


def test_names_a_compatibility_module_reexports_still_import(tmp_path) -> None:
    """``from .compat import safe_map, ShapedArray`` elsewhere: the compatibility module
    reads none of them itself, and each must still be bound there after the migration."""
    import subprocess
    import sys

    from tests.helpers import ccmigrate, child_env

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "compat.py").write_text(
        "from jax.util import safe_map, safe_zip as szip, partial\n"
        "from jax.abstract_arrays import ShapedArray\n"
        "from jax import tree_multimap\n"
    )
    (package / "interp.py").write_text(
        "from .compat import safe_map, szip, partial, ShapedArray, tree_multimap\n"
        "def run(xs):\n"
        "    return (safe_map(partial(max, 0), xs), szip(xs, xs), ShapedArray((2,), 'float32').shape,\n"
        "            tree_multimap(lambda a, b: a + b, [1], [2]))\n"
    )
    result = ccmigrate("apply", "--allow-dirty", str(package), cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "from jax.util" not in (package / "compat.py").read_text()
    probe = subprocess.run([sys.executable, "-c", "from pkg.interp import run; print(run([-1, 2]))"],
                           cwd=str(tmp_path), capture_output=True, text=True, env=child_env())
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == "([0, 2], [(-1, -1), (2, 2)], (2,), [3])"


@pytest.mark.parametrize("imports, kept", [
    (b"from jax import lax, util\n", b"from jax import lax\n"),
    (b"from jax import lax\nimport jax.util\n", b"from jax import lax\n"),
    (b"from jax import lax\nimport jax.util as ju\n", b"from jax import lax\n"),
])
def test_an_import_of_jax_util_nothing_reads_goes(imports: bytes, kept: bytes) -> None:
    """The import alone raised ModuleNotFoundError on jax 0.7.0: with no use to migrate, it
    goes all the same (before, nothing reported it and it was left)."""
    body = b"\n\ndef f(x):\n    return lax.neg(x)\n"
    result = rewrite_source(imports + body, "m.py", ["--select", "jax-util"])
    assert result.updated == kept + body
    assert [c.safety.value for c in result.changes] == ["safe"]
    assert "unused import of jax.util" in result.changes[0].message
    # Read, or named in __all__ (what it binds is a name), or below jax 0.7.0, it stays.
    cases = [(imports + body + b"\nhelpers = util, ju, jax.util.safe_map\n", []), (imports + body, ["--target-jax", "0.6.2"])]
    if b"import jax.util\n" not in imports:
        cases.append((imports + b'__all__ = ["util", "ju"]\n' + body, []))
    for source, args in cases:
        again = rewrite_source(source, "m.py", ["--select", "jax-util", *args])
        assert not any("unused import" in c.message for c in again.changes)


def test_an_unread_reexport_written_as_util_as_util_is_removed() -> None:
    """``from jax import util as util`` (a package ``__init__``'s explicit re-export) binds
    ``util`` like ``from jax import util``; the fix the report announces is in the file."""
    source = b"from jax import lax as lax\nfrom jax import util as util\n\nimport jax.lib\n"
    result = rewrite_source(source, "__init__.py", ["--select", "jax-util", "--target-jax", "0.7.0"])
    assert [c.safety.value for c in result.changes] == ["safe"]
    assert result.updated == b"from jax import lax as lax\n\nimport jax.lib\n"


def test_curry_calls_and_names_as_jaxs_private_copy() -> None:
    """fastar decorates its rules with ``@curry``: the definition curries as jax's did and
    carries the same name, docstring and wrapped function."""
    ours, theirs = _defined("curry"), private.curry

    def rule(a, b, c=0):
        """A rule."""
        return (a, b, c)

    for make in (ours, theirs):
        assert make(rule)(1)(2, c=3) == (1, 2, 3) and make(rule)(1, 2)() == (1, 2, 0)
    for attr in ("__name__", "__qualname__", "__doc__", "__module__", "__wrapped__", "__annotations__"):
        assert getattr(ours(rule), attr) == getattr(theirs(rule), attr), attr
    nameless = functools.partial(rule, 1)
    assert ours(nameless).__name__ == theirs(nameless).__name__ == "rule"
    source = b"from jax.util import curry\n\n\n@curry\ndef f(a, b):\n    return a + b\n"
    result = rewrite_source(source, "m.py", ["--select", "jax-util"])
    assert [c.safety.value for c in result.changes] == ["safe"]
    namespace: dict = {}
    exec(compile(result.updated, "m.py", "exec"), namespace)
    assert namespace["f"](1)(2) == 3 and b"from jax.util" not in result.updated
