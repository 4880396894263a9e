"""host-callback: the rewritten fixtures run on the installed jax and call the host the
way jax 0.4.34 did (the same arguments, an empty ``transforms`` tuple for a tap, the
results shaped as declared); what has no faithful rewrite stays and is reported."""

from __future__ import annotations

import os

import numpy as np
import pytest

from tests.compat.custom_calls import load_module
from tests.helpers import TESTDATA, rewrite_source

FIXTURES = os.path.join(TESTDATA, "rules", "host-callback")


def _expected(name: str):
    return load_module(os.path.join(FIXTURES, f"{name}.expected.py"), name=f"ccm_hcb_{name}")


def test_call_runs_the_host_function_under_jit():
    import jax

    module = _expected("host_solver")
    function, args = module.entry()
    norms, numbers = jax.jit(function)(*args)
    data, scale = args
    np.testing.assert_allclose(np.asarray(norms), np.linalg.norm(data, axis=-1) * scale, rtol=1e-6)
    assert norms.dtype == np.float32 and numbers.dtype == np.int32
    assert np.asarray(numbers).tolist() == data.astype(np.int32).sum(axis=-1).tolist()


def test_id_tap_calls_the_tap_with_the_value_and_no_transforms():
    import jax

    module = _expected("progress_tap")
    module.SEEN.clear()
    function, args = module.entry()
    total = jax.jit(function)(*args)
    jax.effects_barrier()
    assert np.asarray(total).tolist() == [4.0, 4.0, 4.0]
    # The tap saw iterations 0 and 2 of 4 (every second one), in order, with transforms ().
    assert module.SEEN == [(0, ()), (2, ())]
    # A used tap value is `result` (the counter); the statement form returns nothing used.
    assert int(jax.jit(lambda i: module.update_progress(i, 3))(np.int32(3))) == 3
    out = module.close_progress(np.float32(1.5), np.int32(7))
    assert float(out) == 1.5 and module.SEEN[-1] == ("close", ())


def test_pure_and_debug_flavours_run():
    import jax

    source = open(os.path.join(FIXTURES, "flavors.expected.py")).read()
    # The module keeps the import its manual sites need; run only what was rewritten.
    namespace: dict = {}
    code = source.split("def with_device")[0].replace(
        "from jax.experimental.host_callback import call, id_print, id_tap\n", "")
    exec(compile(code, "flavors.expected.py", "exec"), namespace)
    x = np.arange(3, dtype=np.float32)
    assert np.asarray(jax.jit(namespace["double"])(x)).tolist() == [0.0, 2.0, 4.0]
    seen = []
    jax.jit(lambda v: namespace["debug_tap"](v, lambda value, transforms: seen.append((value.tolist(), transforms))))(x)
    jax.effects_barrier()
    assert seen == [([0.0, 1.0, 2.0], ())]


@pytest.mark.parametrize("name, manual", [
    ("flavors", {21: "call_with_device", 25: "jax.debug.print", 28: "used other than in a call", 4: "kept for the manual sites"}),
    ("guarded", {6: "compatibility guard"}),
])
def test_what_has_no_faithful_rewrite_is_reported(name, manual):
    path = os.path.join(FIXTURES, f"{name}.py")
    result = rewrite_source(open(path, "rb").read(), path)
    found = {c.line: c.message for c in result.changes if c.rule == "host-callback" and not c.applied}
    assert set(found) == set(manual), found
    for line, words in manual.items():
        assert words in found[line], found[line]


def test_the_unused_import_goes_with_every_rule():
    path = os.path.join(FIXTURES, "host_solver.py")
    result = rewrite_source(open(path, "rb").read(), path)
    assert result.updated is not None and b"import jax.experimental.host_callback" not in result.updated
    assert not [c for c in result.changes if not c.applied], result.changes


def test_a_global_declaration_is_no_use_of_the_name_it_declares():
    """``global CallbackFlavor, id_tap`` in a function declares the names, it reads
    neither: with it, the same rewrite and the same report as without, and --annotate's
    second pass agrees with the first (a declaration once counted as a use kept the import
    on one pass and not the next)."""
    path = os.path.join(FIXTURES, "flavors.py")
    with open(path) as fh:
        source = fh.read()
    declared = source.replace("def double(x):\n", "def double(x):\n    global CallbackFlavor, call\n") \
        .replace("def debug_tap(x, tap):\n", "def debug_tap(x, tap):\n    global CallbackFlavor, id_tap\n")
    assert declared.count("global ") == 2
    plain = rewrite_source(source.encode(), path)
    result = rewrite_source(declared.encode(), path)
    assert result.updated.decode().replace("    global CallbackFlavor, call\n", "").replace(
        "    global CallbackFlavor, id_tap\n", "") == plain.updated.decode()
    # (The two declarations move what follows down two lines.)
    assert sorted(c.message.replace("line 23", "line 21") for c in result.changes) == sorted(c.message for c in plain.changes)
    annotated = rewrite_source(declared.encode(), path, ["--annotate"])
    assert annotated.error is None and annotated.updated is not None
