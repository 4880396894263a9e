"""removed-jax-api: missing names are reported manual on their line; others' names are not."""

import os

from codemods.rule import Safety
from tests.helpers import TESTDATA, rewrite_source

CASES = os.path.join(TESTDATA, "rules", "removed-jax-api")


def _run(case: str, *args: str):
    path = os.path.join(CASES, case)
    with open(path, "rb") as f:
        source = f.read()
    return rewrite_source(source, path, [*args, "--select", "removed-jax-api"])


def test_missing_names_are_manual_with_reason_on_their_line() -> None:
    result = _run("missing_names.py")
    found = {(c.line, c.message.split(" ")[0]) for c in result.changes if c.safety is Safety.MANUAL}
    assert found == {
        (7, "jax.interpreters.batching.moveaxis"),
        (8, "jax.interpreters.ad.Zero.from_value"),
        (8, "jax.dlpack.to_dlpack"),
    }
    assert all("does not exist in the installed jax" in c.message for c in result.changes)


def test_names_other_rules_own_and_guarded_sites_are_not_reported() -> None:
    for case in ("owned_by_other_rules.py", "guarded.py"):
        assert _run(case).changes == [], case


def test_catch_all_only_for_the_installed_release() -> None:
    assert _run("missing_names.py", "--target-jax", "0.4.20").changes == []
