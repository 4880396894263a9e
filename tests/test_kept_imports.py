"""An import of a deleted module that manual sites keep alive is itself reported."""

import os

from codemods.rule import Safety
from tests.helpers import TESTDATA, rewrite_source


def test_import_kept_for_manual_sites_is_reported() -> None:
    path = os.path.join(TESTDATA, "rules", "xla-translation-rule", "import_kept_for_manual.py")
    with open(path, "rb") as f:
        source = f.read()
    result = rewrite_source(source, path, ["--select", "xla-translation-rule"])
    assert result.updated is None and result.error is None
    at_import = [c for c in result.changes if c.line == 3]
    assert [c.safety for c in at_import] == [Safety.MANUAL]
    assert "jax.lib.xla_client" in at_import[0].message
    assert "kept for the manual sites at lines 9, 10" in at_import[0].message


def test_import_without_manual_sites_is_not_reported() -> None:
    path = os.path.join(TESTDATA, "rules", "xla-translation-rule", "from_jax_import_xla.py")
    with open(path, "rb") as f:
        source = f.read()
    result = rewrite_source(source, path, ["--select", "xla-translation-rule"])
    assert all(c.safety is not Safety.MANUAL for c in result.changes)


def test_module_alias_assignment_is_reported() -> None:
    path = os.path.join(TESTDATA, "rules", "xla-client-import", "module_alias_assignment.py")
    with open(path, "rb") as f:
        source = f.read()
    result = rewrite_source(source, path, ["--select", "xla-client-import"])
    assert result.updated is None and result.error is None
    assert [(c.line, c.safety) for c in result.changes] == [(4, Safety.MANUAL)]
    assert "jax.lib.xla_client" in result.changes[0].message


def test_builder_calls_outside_the_custom_call_are_reported() -> None:
    path = os.path.join(TESTDATA, "rules", "xla-translation-rule", "factory_nested_layouts.py")
    with open(path, "rb") as f:
        source = f.read()
    result = rewrite_source(source, path, ["--select", "xla-translation-rule"])
    assert result.updated is None and result.error is None
    manual_lines = {c.line for c in result.changes if c.safety is Safety.MANUAL}
    # The shapes (one in a list comprehension), the constant, both custom calls and the
    # registration inside the factory; not the import: jax._src.lib.xla_client still imports.
    assert manual_lines == {15, 17, 19, 20, 21, 29, 40}


def _findings(source: str) -> list:
    result = rewrite_source(source.encode(), "/tmp/module.py", [])
    assert result.error is None, result.error
    return result.changes


def test_import_kept_by_uses_no_rule_migrates_is_reported() -> None:
    source = (
        "from jaxlib.xla_extension import XlaBuilder, XlaOp\n"
        "\n"
        "\n"
        "def _rule(builder: XlaBuilder, x: XlaOp):\n"
        "    return x\n"
    )
    (change,) = _findings(source)
    assert change.safety is Safety.MANUAL and change.line == 1
    assert "jaxlib.xla_extension" in change.message and "line 4" in change.message


def test_module_import_used_through_partial_is_reported() -> None:
    source = (
        "import functools\n"
        "from jaxlib import hlo_helpers\n"
        "\n"
        "custom_call = functools.partial(hlo_helpers.custom_call, 'op', result_types=[])\n"
    )
    manual = [c for c in _findings(source) if c.safety is Safety.MANUAL]
    # The builder kept as a value where the partial keeps it, and the import kept for it.
    assert [c.line for c in manual] == [4, 2]
    assert "is kept as a value (`custom_call = functools.partial(" in manual[0].message
    assert "jaxlib.hlo_helpers" in manual[1].message and "line 4" in manual[1].message


def test_guarded_import_with_unmigrated_uses_is_not_reported() -> None:
    source = (
        "try:\n"
        "    from jaxlib.xla_extension import XlaBuilder\n"
        "except ImportError:\n"
        "    from jax._src.lib import xla_client\n"
        "    XlaBuilder = None\n"
        "\n"
        "BUILDER_TYPE = XlaBuilder\n"
    )
    assert [c for c in _findings(source) if "deleted from jax" in c.message] == []


def test_module_alias_goes_only_when_every_use_is_rewritten() -> None:
    path = os.path.join(TESTDATA, "rules", "xla-client-import", "module_alias_rewritten.py")
    with open(path, "rb") as f:
        source = f.read()
    rules = ["--select", "xla-client-import,register-custom-call-target,custom-call-api"]
    removed = rewrite_source(source, path, rules)
    assert {(c.line, c.safety) for c in removed.changes if c.rule == "xla-client-import"} == {
        (7, Safety.SAFE), (8, Safety.SAFE)}
    # Once the member alias is read, or a registration is left alone, the alias stays reported.
    for changed, extra in ((source + b"ops = xops\n", rules), (source, ["--select", "xla-client-import,custom-call-api"])):
        kept = rewrite_source(changed, path, extra)
        assert kept.error is None
        assert [(c.line, c.safety) for c in kept.changes if c.rule == "xla-client-import"] == [(7, Safety.MANUAL)]


def test_custom_call_in_a_helper_registered_elsewhere_names_the_helper() -> None:
    source = b'''from jax.lib import xla_client


def _cpu_translation(func, multiple_results, c, *inputs, **info):
    return xla_client.ops.CustomCallWithLayout(c, b"target", operands=inputs,
                                               operand_shapes_with_layout=(), shape_with_layout=None)
'''
    result = rewrite_source(source, "numba_helper.py", ["--select", "xla-translation-rule"])
    (call,) = [c for c in result.changes if c.line == 5]
    assert call.safety is Safety.MANUAL
    assert "`_cpu_translation`, the function it is in, is not registered as a translation rule in this module" in call.message
    assert [c.line for c in result.changes if c.line == 1] == [1]  # the import it keeps is reported too


def test_import_beside_a_dropped_unused_import_is_still_reported() -> None:
    # A test script's `from jax.lib import xla_client, xla_bridge`: the unused xla_bridge
    # goes (a safe fix on the same statement), xla_client stays for module-level builders.
    source = (
        "import numpy as np\n"
        "from jax.lib import xla_client, xla_bridge\n"
        "\n"
        "\n"
        "def build():\n"
        "    c = xla_client.XlaBuilder('graph')\n"
        "    return xla_client.shape_from_pyval(np.ones(3))\n"
    )
    at_import = [c for c in _findings(source) if c.line == 2]
    assert sorted(c.safety.value for c in at_import) == ["manual", "safe"]
    kept = next(c for c in at_import if c.safety is Safety.MANUAL)
    assert "`jax.lib.xla_client`" in kept.message and "lines 6, 7" in kept.message


def test_deleted_custom_call_name_kept_for_a_manual_site_is_reported() -> None:
    # veros-style: one lowering rule is rewritten, the other (more results than outputs,
    # with result types and layouts from helpers, which cannot be counted) stays manual, and keeps
    # `from jax.interpreters.mlir import custom_call`.
    source = (
        "import jaxlib.mlir.ir as ir\n"
        "from jax.interpreters.mlir import custom_call\n"
        "\n"
        "\n"
        "def _cpu(ctx, a):\n"
        "    return custom_call(b'solve_cpu', operands=(a,), result_types=[a.type]).results\n"
        "\n"
        "\n"
        "def _gpu(ctx, a):\n"
        "    layout = (0,)\n"
        "    out = custom_call(b'solve_gpu', operands=(a,), result_types=types_for(a),\n"
        "                      operand_layouts=(layout,), result_layouts=layouts_for(a))\n"
        "    return out.results[:-1]\n"
    )
    at_import = [c for c in _findings(source) if c.line == 2]
    assert [(c.rule, c.safety) for c in at_import] == [("custom-call-api", Safety.MANUAL)]
    assert "`jax.interpreters.mlir.custom_call` (deleted from jax) kept for the manual sites at line 11" in at_import[0].message


def test_deleted_custom_call_name_goes_when_every_site_is_rewritten() -> None:
    source = (
        "from jax.interpreters.mlir import custom_call\n"
        "\n"
        "\n"
        "def _cpu(ctx, a):\n"
        "    return custom_call(b'solve_cpu', operands=(a,), result_types=[a.type]).results\n"
    )
    result = rewrite_source(source.encode(), "/tmp/module.py", [])
    assert all(c.safety is not Safety.MANUAL for c in result.changes)
    assert b"custom_call" not in result.updated.split(b"\n")[0]


def test_builder_wrapped_in_a_helper_names_its_callers_here_and_in_other_modules() -> None:
    folder = os.path.join(TESTDATA, "rules", "custom-call-api")
    found = {}
    for case in ("wrapped_builder.py", "wrapped_builder_caller.py"):
        path = os.path.join(folder, case)
        with open(path, "rb") as f:
            result = rewrite_source(f.read(), path, ["--select", "custom-call-api"])
        assert result.updated is None and result.error is None
        found[case] = [(c.line, c.safety, c.message) for c in result.changes]
    (line, safety, message), = [c for c in found["wrapped_builder.py"] if c[0] == 8]
    assert safety is Safety.MANUAL
    assert "`call_kernel` is a helper, not a lowering rule (called from line 13 in `_norm_lowering` (context `ctx`), " \
           "line 17 in `_norm_grad_lowering` (context `ctx`))" in message
    (line, safety, message), = found["wrapped_builder_caller.py"]
    assert (line, safety) == (7, Safety.MANUAL)
    assert "`call_kernel` (defined in wrapped_builder.py) wraps jaxlib.hlo_helpers.custom_call" in message
    assert "pass this lowering rule's context `ctx` here" in message
    # Annotated, the TODO names the callers without lines (the comments shift them) and
    # reads the same on the next run.
    path = os.path.join(folder, "wrapped_builder.py")
    with open(path, "rb") as f:
        result = rewrite_source(f.read(), path, ["--annotate"])
    assert result.error is None and result.updated is not None
    todo = next(line for line in result.updated.decode().splitlines() if "`call_kernel` is a helper" in line)
    assert "(called from `_norm_lowering` (context `ctx`), `_norm_grad_lowering` (context `ctx`))" in todo
    assert rewrite_source(result.updated, path, ["--annotate"]).updated is None


def test_plain_dotted_import_kept_for_manual_sites_is_reported() -> None:
    """``import jax.lib.xla_client`` binds ``jax``; the deleted module is the dotted name."""
    path = os.path.join(TESTDATA, "rules", "register-custom-call-target", "dotted_module_import_kept.py")
    with open(path, "rb") as f:
        source = f.read()
    result = rewrite_source(source, path, ["--select", "register-custom-call-target"])
    assert result.updated is None and result.error is None
    at_import = [c for c in result.changes if c.line == 4]
    assert [c.safety for c in at_import] == [Safety.MANUAL]
    assert "import of `jax.lib.xla_client`" in at_import[0].message
    assert "kept for the manual sites at line 9" in at_import[0].message


def test_unused_plain_dotted_import_of_a_deleted_module_is_removed() -> None:
    """Nothing reads it and it only fails: it goes, and so does the root it bound
    (``jaxlib``), which nothing reads either."""
    source = b'import jaxlib.hlo_helpers\nfrom jax.interpreters import mlir\n\nmlir.register_lowering(None, None)\n'
    result = rewrite_source(source, "mod.py")
    assert result.error is None
    assert result.updated == b'from jax.interpreters import mlir\n\nmlir.register_lowering(None, None)\n'
    assert [(c.line, c.safety) for c in result.changes] == [(1, Safety.SAFE)]
    assert "`jaxlib.hlo_helpers` (deleted from jax) is not used and failed at import time: removed" \
        in result.changes[0].message


def test_dotted_import_in_a_function_goes_with_its_call_while_an_older_jax_branch_keeps_its_own() -> None:
    """Each branch of a version test defines the lowering with its own lazy ``import
    jaxlib.hlo_helpers``: the branch for the target loses its import with its call, in
    one run, though the other branch still spells the module."""
    body = (b"    def lower(ctx, x):\n        import jaxlib.hlo_helpers\n"
            b"        return jaxlib.hlo_helpers.custom_call('t', result_types=[x.type], operands=[x],\n"
            b"                                              operand_layouts=[(0,)], result_layouts=[(0,)]).results\n")
    source = b"import jax\n\nif jax.__version_info__ < (0, 4, 31):\n" + body + b"else:\n" + body
    result = rewrite_source(source, "mod.py")
    assert result.error is None
    old, new = result.updated.split(b"else:\n")
    assert old == source.split(b"else:\n")[0]
    assert b"import jaxlib" not in new and b"jax.ffi.ffi_lowering(" in new
    assert rewrite_source(result.updated, "mod.py").updated is None


def test_unread_from_import_of_a_deleted_module_is_removed() -> None:
    """``from jaxlib import hlo_helpers`` whose one call an earlier edit deleted: nothing
    reads it, at module level or in the function holding it, so it goes."""
    source = (b"import jax\nfrom jaxlib import hlo_helpers\nfrom jaxlib import mhlo_helpers as mh\n\n\n"
              b"def lower(ctx, x):\n    from jaxlib import hlo_helpers\n    return x\n")
    result = rewrite_source(source, "mod.py")
    assert result.error is None
    assert result.updated == b"import jax\n\n\ndef lower(ctx, x):\n    return x\n"
    assert [(c.line, c.safety) for c in result.changes] == [(2, Safety.SAFE), (3, Safety.SAFE), (7, Safety.SAFE)]
    assert "failed when `lower` runs: removed" in result.changes[2].message
    assert rewrite_source(result.updated, "mod.py").updated is None


def test_unread_from_import_of_a_deleted_module_named_in_all_is_reported() -> None:
    source = b"from jaxlib import hlo_helpers\n\n__all__ = ['hlo_helpers']\n"
    result = rewrite_source(source, "mod.py")
    assert result.updated is None and result.error is None
    assert [(c.line, c.safety) for c in result.changes] == [(1, Safety.MANUAL)]
    assert "a string names `hlo_helpers`" in result.changes[0].message


def test_unused_plain_dotted_import_keeps_the_root_it_bound_where_it_is_read() -> None:
    source = b'import jax.lib.xla_bridge\n\n\ndef f(x):\n    return jax.numpy.sin(x)\n'
    result = rewrite_source(source, "mod.py")
    assert result.error is None
    assert result.updated == b'import jax\n\n\ndef f(x):\n    return jax.numpy.sin(x)\n'
    assert rewrite_source(result.updated, "mod.py").updated is None


def test_import_inside_a_function_kept_for_its_manual_sites_is_reported() -> None:
    """It fails when the function runs; only the sites in that function keep it."""
    source = (
        b"def builder():\n"
        b"    from jax.lib import xla_client\n"
        b"    return xla_client.XlaBuilder('f')\n"
        b"\n"
        b"\n"
        b"def other(xla_client):\n"
        b"    return xla_client.XlaBuilder('g')\n"
    )
    result = rewrite_source(source, "m.py")
    kept = [c for c in result.changes if c.line == 2]
    assert len(kept) == 1 and kept[0].safety is Safety.MANUAL
    assert kept[0].message.startswith("import of `jax.lib.xla_client` (deleted from jax) kept for the manual sites at line 3:")
    assert "fails when `builder` runs" in kept[0].message

def test_dotted_import_inside_a_function_kept_for_its_manual_sites_is_reported() -> None:
    """``import jaxlib.hlo_helpers`` in a lowering rule whose call stays manual (its
    arguments are splatted): the import fails when the rule runs, and says so."""
    source = (
        b"def _lowering(ctx, x):\n"
        b"    import jaxlib.hlo_helpers\n"
        b"    kwargs = {'result_types': [x.type], 'operands': [x]}\n"
        b"    return jaxlib.hlo_helpers.custom_call('k', **kwargs).results\n"
        b"\n"
        b"\n"
        b"def other(jaxlib):\n"
        b"    return jaxlib.hlo_helpers.custom_call('k', **{}).results\n"
    )
    result = rewrite_source(source, "m.py")
    kept = [c for c in result.changes if c.line == 2]
    assert len(kept) == 1 and kept[0].safety is Safety.MANUAL
    assert kept[0].message.startswith("import of `jaxlib.hlo_helpers` (deleted from jax) kept for the manual sites at line 4:")
    assert "fails when `_lowering` runs" in kept[0].message



def test_deleted_module_kept_is_reported_beside_another_name_of_the_same_import() -> None:
    # `from jax import abstract_arrays, xla`: the finding about abstract_arrays (a
    # ConcreteArray made has no replacement, so it stays) does not cover xla, which a manual
    # translation rule keeps alive.
    source = (
        "from jax import abstract_arrays, xla\n"
        "\n"
        "concrete = [abstract_arrays.ConcreteArray(a.dtype, a) for a in []]\n"
        "xla.backend_specific_translations['cpu'][p] = rule\n"
    )
    at_import = [c for c in _findings(source) if c.line == 1]
    assert len(at_import) == 2 and all(c.safety is Safety.MANUAL for c in at_import)
    kept = [c for c in at_import if "`jax.xla`" in c.message]
    assert len(kept) == 1 and "kept for the manual sites at line 4:" in kept[0].message


def test_a_module_whose_uses_all_move_leaves_no_finding_at_the_import() -> None:
    # `api.jit` becomes `jit`: the import of jax.api goes and nothing about it is reported,
    # while xla, kept by a manual site, is.
    source = (
        "from jax import api, xla\n"
        "\n"
        "f = api.jit(g)\n"
        "xla.backend_specific_translations['cpu'][p] = rule\n"
    )
    at_import = [c for c in _findings(source) if c.line == 1]
    assert not any(c.safety is Safety.MANUAL and "jax.api" in c.message for c in at_import)
    assert [c.safety for c in at_import if "`jax.xla`" in c.message] == [Safety.MANUAL]


def test_unused_builder_import_dropped_is_not_also_called_a_re_export() -> None:
    source = (
        "__all__ = ['axpy_lowering']\n"
        "from jax.extend.mlir.dialects import stablehlo as hlo\n"
        "from jaxlib.hlo_helpers import custom_call\n"
        "\n"
        "\n"
        "def axpy_lowering(ctx, a, x, y):\n"
        "    return [hlo.AddOp(hlo.MulOp(a, x), y).result]\n"
    )
    at_import = [c for c in _findings(source) if c.line == 3]
    assert [(c.rule, c.safety) for c in at_import] == [("custom-call-api", Safety.SAFE)]


def test_imports_in_a_branch_for_older_jax_are_not_reported_as_failing() -> None:
    path = os.path.join(TESTDATA, "rules", "custom-call-api", "version_branch_helper.py")
    with open(path, "rb") as f:
        source = f.read()
    result = rewrite_source(source, path, [])
    assert result.updated is None and result.error is None
    manual = [c for c in result.changes if c.safety is Safety.MANUAL]
    assert [c.line for c in manual] == [12]
    assert "compatibility guard" in manual[0].message and "left as is" in manual[0].message
    assert "no enclosing lowering rule" not in manual[0].message


def test_import_in_a_try_that_only_rewords_the_failure_is_reported() -> None:
    path = os.path.join(TESTDATA, "rules", "hlo-helpers", "reraising_import_guard.py")
    with open(path, "rb") as f:
        source = f.read()
    result = rewrite_source(source, path, ["--select", "hlo-helpers,custom-call-api"])
    at_import = [c for c in result.changes if c.line == 6]
    assert [(c.rule, c.safety) for c in at_import] == [("hlo-helpers", Safety.MANUAL)]
    assert "stays while `custom_call` still has uses" in at_import[0].message


def test_import_inside_a_function_kept_by_uses_no_rule_migrates_is_reported() -> None:
    """``from jaxlib.xla_extension import XlaBuilder`` inside a factory, for its nested
    rule's annotations: it fails when the factory runs."""
    source = (
        b"def make_rule():\n"
        b"    from jaxlib.xla_extension import XlaBuilder\n"
        b"\n"
        b"    def rule(builder: XlaBuilder, x):\n"
        b"        return x\n"
        b"    return rule\n"
    )
    result = rewrite_source(source, "m.py")
    assert result.error is None
    assert [(c.line, c.safety) for c in result.changes] == [(2, Safety.MANUAL)]
    assert "stays for uses no rule migrates, at line 4" in result.changes[0].message
    assert "it fails when `make_rule` runs" in result.changes[0].message


def test_sites_inside_a_helper_the_rewrite_removes_leave_the_report() -> None:
    """tfc: private helpers building XlaBuilder constants, nested in a setup method; every
    call of them is inlined and they go, so neither their own XLA ops nor the import kept
    for them may be reported (nor annotated: a TODO would outlive the import)."""
    source = (
        b"import numpy as np\n"
        b"from jax.extend.core import Primitive\n"
        b"from jax.interpreters import xla\n"
        b"from jax.lib import xla_client\n"
        b"\n"
        b"p = Primitive('k')\n"
        b"\n"
        b"\n"
        b"class Setup:\n"
        b"    def setup(self):\n"
        b"        def _constant_s32_scalar(c, a):\n"
        b"            return xla_client.ops.Constant(c, int(a))\n"
        b"\n"
        b"        def _rule(c, x, *, n):\n"
        b"            return xla_client.ops.CustomCall(\n"
        b"                c, b'k', operands=(_constant_s32_scalar(c, n), x),\n"
        b"                shape=xla_client.Shape.array_shape(np.dtype(np.float64), (3,), (0,)))\n"
        b"\n"
        b"        xla.backend_specific_translations['cpu'][p] = _rule\n"
    )
    for args in ([], ["--annotate"]):
        result = rewrite_source(source, "setup.py", args)
        assert result.error is None
        assert result.updated is not None
        assert [c for c in result.changes if c.safety is Safety.MANUAL] == []
        text = result.updated.decode()
        assert "xla_client" not in text and "TODO(ccmigrate)" not in text
        assert "_constant_s32_scalar" not in text and "mlir.ir_constant(np.asarray(int(n)))" in text


def test_a_fallback_spelling_the_name_in_a_module_path_does_not_keep_the_import() -> None:
    """jax-chacha-prng: ``from jax.lib import xla_client`` (its uses all migrated) beside a
    fallback reported whole that imports ``from jaxlib.xla_client import XlaOp``: that
    module path reads no ``xla_client``, so the import goes and nothing says it stays;
    the fallback's own inner import is part of the site, not kept for it."""
    source = (
        b"import jax\n"
        b"from jax.lib import xla_client\n"
        b"\n"
        b"try:\n"
        b"    XlaOp = jax.xla.XlaOp\n"
        b"except AttributeError:\n"
        b"    try:\n"
        b"        from jaxlib.xla_client import XlaOp\n"
        b"    except ImportError:\n"
        b"        raise ImportError('no XlaOp')\n"
        b"\n"
        b"for name, fn in {}.items():\n"
        b"    xla_client.register_custom_call_target(name, fn, platform='cpu')\n"
        b"\n"
        b"\n"
        b"def use(x: XlaOp):\n"
        b"    return x\n"
    )
    result = rewrite_source(source, "fallback.py")
    assert result.error is None
    assert b"xla_client.register" not in result.updated and b"from jax.lib import" not in result.updated
    manual = [c for c in result.changes if c.safety is Safety.MANUAL]
    assert [c.line for c in manual] == [4]
    assert "every branch of this import fallback fails" in manual[0].message


def test_a_module_import_kept_only_by_a_branch_for_older_jax_is_reported() -> None:
    # The branch for jax < 0.4.31 still spells jax.util (nothing migrates it), the other is
    # migrated: the module-level imports above both fail on the target, and say so.
    source = (
        "import jax\n"
        "import jax.util\n"
        "from jax import util\n"
        "\n"
        "if jax.__version_info__ < (0, 4, 31):\n"
        "    def pairs(xs, ys):\n"
        "        return jax.util.safe_zip(xs, ys), util.safe_map(len, xs)\n"
        "else:\n"
        "    def pairs(xs, ys):\n"
        "        return jax.util.safe_zip(xs, ys), util.safe_map(len, xs)\n"
    )
    found = {c.line: c for c in _findings(source) if c.line in (2, 3)}
    assert sorted(found) == [2, 3] and all(c.safety is Safety.MANUAL for c in found.values())
    assert all("import of `jax.util` (deleted from jax) stays for uses no rule migrates, at line 7" in c.message
               for c in found.values())


def test_a_removed_member_of_a_module_still_there_kept_by_other_uses_is_reported() -> None:
    """``from jaxlib.xla_client import ops`` fails though jaxlib.xla_client still imports;
    with ``ops`` bound again further down, no rule follows its reads, and the import went
    unreported (found by benchmarks/fuzz.py)."""
    source = (
        "from jaxlib.xla_client import ops\n"
        "\n"
        "print('loaded')\n"
        "ops = None\n"
        "\n"
        "\n"
        "def f():\n"
        "    return ops\n"
    )
    (change,) = _findings(source)
    assert change.safety is Safety.MANUAL and change.line == 1
    assert "`jaxlib.xla_client.ops`" in change.message and "stays for uses no rule migrates" in change.message
