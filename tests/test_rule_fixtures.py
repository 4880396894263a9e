"""Every rule fixture: ``testdata/rules/<rule>/<case>.py`` rewritten must equal
``<case>.expected.py`` beside it, and the expected output must be a fixed point.

A fixture's first line may carry flags: ``# ccmigrate-args: --unsafe-fixes --target-jax 0.6``.
A case without an ``.expected.py`` file must come out unchanged.
"""

from __future__ import annotations

import glob
import os
import re

import pytest

from codemods.rules import all_rules
from tests.helpers import TESTDATA, fixture_args, fixture_runs_every_rule, rewrite_source

RULES_DIR = os.path.join(TESTDATA, "rules")


def _cases():
    for path in sorted(glob.glob(os.path.join(RULES_DIR, "*", "*.py"))):
        if path.endswith(".expected.py"):
            continue
        rule = os.path.basename(os.path.dirname(path))
        yield pytest.param(path, id=f"{rule}/{os.path.basename(path)[:-3]}")


def _expected_path(path: str) -> str:
    return path[:-3] + ".expected.py"


@pytest.mark.parametrize("path", list(_cases()))
def test_fixture(path: str) -> None:
    with open(path, "rb") as fh:
        source = fh.read()
    args = fixture_args(source)
    rule = os.path.basename(os.path.dirname(path))
    if fixture_runs_every_rule(source):
        pass  # the run plain `ccmigrate` makes: every rule
    elif "--select" not in args:
        args = [*args, "--select", rule]
    result = rewrite_source(source, path, args)
    assert result.error is None, result.error
    expected_path = _expected_path(path)
    if os.path.exists(expected_path):
        with open(expected_path, "rb") as fh:
            expected = fh.read()
    else:
        expected = source
    actual = result.updated if result.updated is not None else source
    assert actual.decode() == expected.decode()
    again = rewrite_source(expected, path, args)
    assert again.error is None, again.error
    assert again.updated is None, "the expected output is not a fixed point"


def test_every_rule_has_fixtures() -> None:
    for rule in all_rules():
        folder = os.path.join(RULES_DIR, rule.name)
        assert glob.glob(os.path.join(folder, "*.expected.py")), f"rule {rule.name} has no fixtures in {folder}"


def test_every_rule_is_documented() -> None:
    for rule in all_rules():
        doc = rule.__doc__ or ""
        assert rule.name and rule.summary and rule.triggers, rule
        assert len(doc.strip().splitlines()) >= 5, f"rule {rule.name} needs a docstring: what, why, before/after"


def test_every_fixture_is_stable_with_annotations() -> None:
    """With --annotate a second run must find the same manual sites, worded the same: a
    rewrite that makes a new finding appear (or rewords one) would add a TODO each run."""
    failed = []
    for path in sorted(glob.glob(os.path.join(TESTDATA, "rules", "*", "*.py"))):
        if path.endswith(".expected.py"):
            continue
        with open(path, "rb") as fh:
            source = fh.read()
        args = fixture_args(source)
        if not fixture_runs_every_rule(source) and "--select" not in args:
            args = [*args, "--select", os.path.basename(os.path.dirname(path))]
        result = rewrite_source(source, path, [*args, "--annotate"])
        if result.error:
            failed.append(f"{os.path.relpath(path, TESTDATA)}: {result.error}")
    assert not failed, failed



def test_a_reworded_note_of_the_same_rule_counts_as_the_annotation() -> None:
    """A note's wording may depend on other files (a re-export lists the modules still
    using it, and the first run migrated some): the TODO an earlier run wrote stands for
    it, or every run would add another. A TODO of another rule does not."""
    path = os.path.join(RULES_DIR, "xla-translation-rule", "builder_free_manual.py")
    with open(path, "rb") as fh:
        source = fh.read()
    args = ["--select", "xla-translation-rule", "--annotate"]
    first = rewrite_source(source, path, args).updated
    assert first is not None
    todos = [line for line in first.decode().splitlines() if "# TODO(ccmigrate): [xla-translation-rule]" in line]
    assert todos
    message = todos[0].split("] ", 1)[1]
    quoted = re.search(r"`[^`]+`", message)
    assert quoted is not None
    # Other names quoted (a re-export's list of modules still using it, say): the same note.
    reworded = first.decode().replace(message, message.replace(quoted.group(0), "`another_module.py`", 1))
    assert reworded != first.decode()
    assert rewrite_source(reworded.encode(), path, args).updated is None
    # A TODO of the same rule about something else (acted on since) stands for nothing.
    other_subject = first.decode().replace(message, "jax.core.ConcreteArray does not exist here")
    again = rewrite_source(other_subject.encode(), path, args).updated
    assert again is not None and todos[0].strip() in again.decode()
    other_rule = first.decode().replace(todos[0], todos[0].replace("[xla-translation-rule]", "[custom-call-api]"))
    again = rewrite_source(other_rule.encode(), path, args).updated
    assert again is not None and todos[0].strip() in again.decode()


def test_a_builder_kept_as_a_value_is_reported_where_it_is_kept() -> None:
    path = os.path.join(RULES_DIR, "custom-call-api", "builder_kept_as_value.py")
    with open(path, "rb") as fh:
        result = rewrite_source(fh.read(), path, ["--select", "custom-call-api"])
    assert result.error is None and result.updated is None
    found = [(c.safety.value, c.line, c.message.split(" (removed", 1)[0]) for c in result.changes]
    assert found[:2] == [
        ("manual", 12, "jax.interpreters.mlir.custom_call"),
        ("manual", 24, "jaxlib.hlo_helpers.custom_call"),
    ]
    assert "`call = functools.partial(hlo_helpers.custom_call" in result.changes[1].message
    assert found[2][:2] == ("manual", 10) and "kept for the manual sites at line 24" in result.changes[2].message
