"""Every rewrite is checked before it is written: the new text must parse, and a second
pass of the same rules must change nothing. A rewrite that fails is not written and is
reported as a tool error for that file; the other files are rewritten as usual.

The rules below are deliberately broken, as a buggy rule would be.
"""

from __future__ import annotations

import os

import libcst as cst
import pytest

from codemods import cli, engine
from codemods.context import Options
from codemods.rule import Rule, Safety
from codemods.rules import select_rules
from tests.helpers import TESTDATA, ccmigrate

GOOD = os.path.join(TESTDATA, "bad", "good.py")
TARGET = b"breaks_here"
SOURCE = b"from jax.interpreters import mlir\n\nmlir.custom_call('t', backend_config=breaks_here)\n"


class EmitsInvalidCode(Rule):
    """Replaces a name with a keyword: the printed text no longer parses."""

    name = "emits-invalid-code"
    summary = "test rule"
    triggers = (TARGET,)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == TARGET.decode():
            self.report(node, Safety.SAFE, "rewrite", lambda n: cst.Name("class"))


class NeverSettles(Rule):
    """Wraps the config in one more call on every pass: never a fixed point."""

    name = "never-settles"
    summary = "test rule"
    triggers = (b"backend_config",)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None and node.keyword.value == "backend_config":
            self.report(node.value, Safety.SAFE, "wrap", lambda n: cst.Call(cst.Name("wrap"), [cst.Arg(n)]))


class Crashes(Rule):
    """Raises inside its edit."""

    name = "crashes"
    summary = "test rule"
    triggers = (TARGET,)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == TARGET.decode():
            self.report(node, Safety.SAFE, "boom", lambda n: 1 / 0)


class ClaimsAFixItDoesNotMake(Rule):
    """Reports a fix whose edit gives the node back unchanged, as an edit that matched
    nothing would (an import removal looking for a spelling the file does not have)."""

    name = "claims-a-fix"
    summary = "test rule"
    triggers = (TARGET,)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == TARGET.decode():
            self.report(node, Safety.SAFE, "fixed", lambda n: n)


def test_a_fix_that_leaves_the_file_as_it_was_is_an_error_not_a_fix():
    result = engine.process_source("m.py", SOURCE, [ClaimsAFixItDoesNotMake], Options())
    assert result.updated is None
    assert result.error == "internal error, file not rewritten: claims-a-fix reported fixes that left the file as it was"


def test_a_rewrite_that_does_not_parse_is_refused():
    result = engine.process_source("m.py", SOURCE, [EmitsInvalidCode], Options())
    assert result.updated is None
    assert result.error.startswith("internal error, file not rewritten: the rewrite does not parse")


def test_a_rewrite_a_second_pass_would_change_is_refused():
    result = engine.process_source("m.py", SOURCE, [NeverSettles], Options())
    assert result.updated is None
    assert result.error == (
        "internal error, file not rewritten: a second pass would change the rewrite again (never-settles at line 3)"
    )


def test_a_rule_that_raises_is_one_file_error():
    result = engine.process_source("m.py", SOURCE, [Crashes], Options())
    assert result.updated is None
    assert result.error == "internal error: ZeroDivisionError: division by zero"


def test_refused_rewrites_are_not_written_and_the_run_goes_on(tmp_path, monkeypatch, capsys):
    (tmp_path / "a_invalid.py").write_bytes(SOURCE)
    with open(GOOD, "rb") as fh:
        good = fh.read()
    (tmp_path / "b_good.py").write_bytes(good)
    rules = (EmitsInvalidCode, *select_rules())
    monkeypatch.setattr(cli, "select_rules", lambda select, ignore: rules)

    assert cli.main(["apply", "-q", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"{tmp_path / 'a_invalid.py'}: internal error, file not rewritten: the rewrite does not parse")
    assert (tmp_path / "a_invalid.py").read_bytes() == SOURCE
    with open(os.path.join(TESTDATA, "bad", "good.expected.py"), "rb") as fh:
        assert (tmp_path / "b_good.py").read_bytes() == fh.read()
    assert sorted(os.listdir(tmp_path)) == ["a_invalid.py", "b_good.py"]


def test_diff_reports_a_refused_rewrite_too(tmp_path, monkeypatch, capsys):
    (tmp_path / "m.py").write_bytes(SOURCE)
    monkeypatch.setattr(cli, "select_rules", lambda select, ignore: (NeverSettles,))
    assert cli.main(["diff", "-q", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "a second pass would change the rewrite again" in err


class EmitsWhatOnlyLibcstAccepts(Rule):
    """Produces text LibCST parses but Python rejects (a keyword argument repeated)."""

    name = "libcst-only"
    summary = "test rule"
    triggers = (TARGET,)

    def visit_Call(self, node: cst.Call) -> None:
        if sum(a.keyword is not None and a.keyword.value == "backend_config" for a in node.args) == 1:
            self.report(node, Safety.SAFE, "dup", lambda n: n.with_changes(args=[*n.args, cst.Arg(cst.Name("x"), keyword=cst.Name("backend_config"))]))


def test_a_rewrite_python_rejects_is_refused():
    assert cst.parse_module(SOURCE.replace(b")\n", b", backend_config=x)\n"))  # LibCST accepts it
    result = engine.process_source("m.py", SOURCE, [EmitsWhatOnlyLibcstAccepts], Options())
    assert result.updated is None
    assert result.error.startswith("internal error, file not rewritten: the rewrite is not valid Python")


@pytest.mark.parametrize("statements", [10, engine.MAX_SEPARATE_COMPILES + 50])
def test_a_rewrite_python_rejects_is_refused_however_many_statements_changed(statements):
    """Past MAX_SEPARATE_COMPILES generated statements the whole text is compiled at once:
    the same refusal, on the site's own line. The regenerating rule finds its sites again
    in the rewrite, which would take the engine to another pass: a pass whose text Python
    rejects goes no further (the next one took that text for the original, which Python
    rejected too, so it let the rewrite through)."""
    many = b"".join(b"v%d = %d\n" % (i, i) for i in range(statements))
    result = engine.process_source("m.py", many + SOURCE, [EmitsWhatOnlyLibcstAccepts, RegeneratesEveryStatement], Options())
    assert result.updated is None
    assert result.error.startswith("internal error, file not rewritten: the rewrite is not valid Python")
    site_line = statements + SOURCE.count(b"\n")
    assert f"line {site_line}" in result.error, result.error


class RegeneratesEveryStatement(Rule):
    """Rebuilds every top-level assignment as an equal new node, as LibCST's import passes
    copy the tree: each statement counts as generated."""

    name = "regenerates"
    summary = "test rule"
    triggers = (b"v0 =",)

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Integer):
            self.report(node, Safety.SAFE, "same", lambda n: n.with_changes(value=cst.Integer(n.value.value)))


def _rewrites(paths, options):
    rules = select_rules()
    for path in paths:
        with open(path, "rb") as fh:
            source = fh.read()
        chosen = engine.triggered(rules, source)
        if not chosen:
            continue
        ctx = engine.analyse(path, source, chosen, options)
        new = engine.rewrite(ctx)
        if new is not None:
            yield path, ctx.module, new


COMMENTED = b"""from jax.interpreters import mlir


def f(ctx):
    return 1
    # indented: the block's own footer
# column 0
mlir.custom_call('t', backend_config={'a': 1})  # site

def g(ctx):
    pass
    # the block's footer again

# above the last
mlir.custom_call('t', backend_config={'b': 2})
"""


def test_the_self_check_reparses_only_changed_statements_into_the_parsers_own_tree(tmp_path):
    """The second pass gets the tree a whole parse of the new text gives, node for node."""
    (tmp_path / "commented.py").write_bytes(COMMENTED)
    paths = [str(tmp_path / "commented.py")]
    rules_dir = os.path.join(TESTDATA, "rules")
    # One rewriting case of each rule (the whole set is slow), plus comments and helpers.
    for rule in sorted(os.listdir(rules_dir)):
        cases = sorted(n for n in os.listdir(os.path.join(rules_dir, rule)) if n.endswith(".expected.py"))
        paths += [os.path.join(rules_dir, rule, n.replace(".expected.py", ".py")) for n in cases[:1]]
    paths += [os.path.join(rules_dir, "backend-config", n) for n in ("multiline_comments.py", "unsafe_helper.py")]
    spliced = 0
    for path, original, new in _rewrites(paths, Options(unsafe_fixes=True, annotate=True)):
        reparsed = engine._reparse(original, new)
        if reparsed is None:
            continue
        spliced += 1
        whole = cst.parse_module(new.bytes)
        assert reparsed.deep_equals(whole), path
        assert reparsed.bytes == new.bytes, path
    assert spliced >= 8  # most rewrites are checked without a whole parse


def test_a_changed_statement_that_does_not_parse_is_reported_from_a_whole_parse():
    source = b"import os\n\nmlir.custom_call('t', backend_config=breaks_here)\n\nx = 1\n"
    result = engine.process_source("m.py", source, [EmitsInvalidCode], Options())
    assert result.updated is None
    assert result.error.startswith("internal error, file not rewritten: the rewrite does not parse")


class DropsTheImport(Rule):
    """Deletes ``import legacy_module``; two such rules target one statement."""

    name = "drops-the-import"
    summary = "test rule"
    triggers = (b"legacy_module",)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if isinstance(node.body[0], cst.Import) and cst.Module([node]).code.strip() == "import legacy_module":
            self.report(node, Safety.SAFE, "drop", lambda n: cst.RemoveFromParent())


class AlsoDropsTheImport(DropsTheImport):
    """The same deletion, written as an edit that reads the node it is given."""

    name = "also-drops-the-import"

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if isinstance(node.body[0], cst.Import) and cst.Module([node]).code.strip() == "import legacy_module":
            self.report(node, Safety.SAFE, "drop", lambda n: cst.RemoveFromParent() if n.body else n)


def test_two_rules_removing_one_statement_compose() -> None:
    source = b"import os\nimport legacy_module\n\nprint(os.sep)\n"
    result = engine.process_source("m.py", source, [DropsTheImport, AlsoDropsTheImport], Options())
    assert result.error is None, result.error
    assert result.updated == b"import os\n\nprint(os.sep)\n"
    assert all(c.applied for c in result.changes) and len(result.changes) == 2


class BuildsInvalidNode(Rule):
    """Moves a keyword argument before the positional one: LibCST refuses to build it."""

    name = "builds-invalid-node"
    summary = "test rule"
    triggers = (b"custom_call",)

    def visit_Call(self, node: cst.Call) -> None:
        if len(node.args) == 2 and node.args[1].keyword is not None:

            def edit(updated: cst.CSTNode) -> cst.CSTNode:
                first, second = updated.args
                return updated.with_changes(args=[second.with_changes(comma=cst.Comma()), first.with_changes(comma=cst.MaybeSentinel.DEFAULT)])

            self.report(node, Safety.SAFE, "reorder", edit)


def test_a_node_a_rule_builds_invalid_is_an_internal_error_not_bad_input() -> None:
    """LibCST's validation error is a SyntaxError: it must not read as undecodable input."""
    result = engine.process_source("m.py", SOURCE, [BuildsInvalidNode], Options())
    assert result.updated is None
    assert result.error.startswith("internal error, file not rewritten: a rule built invalid code")


# A module that reads ``mlir`` without importing it (the import was lost in an edit): the
# hlo-helpers rule's replacement imports jax's ``mlir``, which makes the older
# ``mlir.aval_to_ir_type(aval)`` call a jax site that only the next pass can see.
UNBOUND_MLIR = b'''import numpy as np
from jaxlib.hlo_helpers import custom_call, hlo_const


def lowering(ctx, x):
    descriptor = hlo_const(np.frombuffer(b"\\x01\\x02", dtype=np.uint8))
    return custom_call(
        "kernel",
        result_types=[mlir.aval_to_ir_type(ctx.avals_out[0])],
        operands=[descriptor, x],
        operand_layouts=[(0,), (0,)],
        result_layouts=[(0,)],
    ).results
'''


def test_changes_a_rewrite_exposes_are_made_in_a_further_pass_with_their_original_lines():
    rules = select_rules(frozenset({"hlo-helpers", "custom-call-api", "aval-to-ir-type"}))
    result = engine.process_source("m.py", UNBOUND_MLIR, rules, Options())
    assert result.error is None
    text = result.updated.decode()
    assert "from jax.interpreters import mlir" in text
    assert "mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])" in text
    assert "hlo_helpers" not in text
    # Every change is reported once, on the line of the file as it was.
    assert sorted((c.rule, c.line) for c in result.changes) == [
        ("aval-to-ir-type", 9), ("custom-call-api", 7), ("hlo-helpers", 6)]
    assert all(c.applied for c in result.changes)
    again = engine.process_source("m.py", result.updated, rules, Options())
    assert again.error is None and not again.changed


def test_no_further_pass_is_run_for_a_rule_that_never_settles():
    result = engine.process_source("m.py", SOURCE, [NeverSettles], Options(), passes=1)
    assert result.updated is None and "a second pass would change the rewrite again" in result.error


def test_a_rewrite_is_checked_by_the_rules_it_triggers_not_only_those_the_original_did(tmp_path) -> None:
    """The command line gives a file only the rules its text triggers; the check of the
    rewrite used the same list, so ``hlo_const(x)`` -> ``mlir.ir_constant(x)`` was never
    shown to ir-constant, and a second ``apply`` wrapped ``x`` in ``np.asarray`` (found by
    benchmarks/fuzz.py). Now the rewrite is checked, and if need be run again, with every
    rule of the run that it triggers: one ``apply`` gives the fixed point."""
    module = tmp_path / "m.py"
    module.write_text("import numpy as np\nfrom jaxlib.hlo_helpers import hlo_const\n\n\n"
                      "def _descriptor_operand(descriptor_array):\n    return hlo_const(descriptor_array)\n")
    first = ccmigrate("apply", str(tmp_path))
    assert first.returncode == 0, first.stdout + first.stderr
    assert "    return mlir.ir_constant(np.asarray(descriptor_array))\n" in module.read_text()
    again = ccmigrate("diff", str(tmp_path))
    assert again.returncode == 0 and again.stdout == "" and "0 would be rewritten" in again.stderr
