"""Differential-lowering cases declared next to each rule's fixtures.

``testdata/rules/<rule>/compat.toml`` lists cases::

    [[case]]
    fixture = "builder_rule.py"   # the legacy source, in that folder
    jax = "0.4.28"                # the last release that accepted the legacy form, or
                                  # "never": no release lowered it (a dict config), so
                                  # [case.expect] alone, which must then name the
                                  # backend_config, is what the rewrite is held to
    entry = "compat_entry"        # optional; returns (function, example_args)
    run = false                   # optional; also execute and compare outputs
    rules = ["xla-translation-rule"]   # optional; default: every rule
    rewrite_jax = "0.4.30"        # optional: lower the rewrite on this release instead of
                                  # the installed one (a --target-jax rewrite that only
                                  # that release accepts); make test skips the case
    differs = ["operand_layouts"] # optional: fields the rewrite changes on purpose (the
                                  # rule's docstring says why, the change is not safe);
                                  # reported, not failed; every other field must match
    [case.expect]                 # what the rewrite lowers to on the installed jax
    target = "solve_f32"
    api_version = 1

Any rule can add cases by adding the file; nothing else needs to change.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import tomllib
from typing import Optional

from tests.helpers import TESTDATA, fixture_args, rewrite_source


NEVER = "never"


@dataclasses.dataclass(frozen=True)
class Case:
    rule: str
    fixture: str  # absolute path of the legacy source
    jax: str
    entry: str = "compat_entry"
    run: bool = False
    rules: Optional[tuple[str, ...]] = None
    rewrite_jax: Optional[str] = None
    differs: tuple[str, ...] = ()
    expect: dict = dataclasses.field(default_factory=dict, hash=False, compare=False)

    @property
    def legacy_lowers(self) -> bool:
        return self.jax != NEVER

    @property
    def id(self) -> str:
        name = f"{self.rule}/{os.path.basename(self.fixture)[:-3]}"
        # One fixture may declare a case per entry point.
        return name if self.entry == "compat_entry" else f"{name}:{self.entry}"


def cases() -> list[Case]:
    found = []
    for path in sorted(glob.glob(os.path.join(TESTDATA, "rules", "*", "compat.toml"))):
        folder = os.path.dirname(path)
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
        for item in data.get("case", []):
            found.append(
                Case(
                    rule=os.path.basename(folder),
                    fixture=os.path.join(folder, item["fixture"]),
                    jax=str(item["jax"]),
                    entry=item.get("entry", "compat_entry"),
                    run=bool(item.get("run", False)),
                    rules=tuple(item["rules"]) if "rules" in item else None,
                    rewrite_jax=str(item["rewrite_jax"]) if "rewrite_jax" in item else None,
                    differs=tuple(item.get("differs", ())),
                    expect=dict(item.get("expect", {})),
                )
            )
    return found


def rewritten_source(case: Case) -> bytes:
    """The legacy fixture as ``ccmigrate apply`` leaves it (every rule unless limited)."""
    with open(case.fixture, "rb") as fh:
        source = fh.read()
    args = [a for a in fixture_args(source)]
    if case.rules:
        args += ["--select", ",".join(case.rules)]
    result = rewrite_source(source, case.fixture, args)
    if result.error:
        raise RuntimeError(f"{case.id}: {result.error}")
    return result.updated if result.updated is not None else source


def mismatches(expect: dict, description: dict) -> list[str]:
    """Fields of ``expect`` that the lowered description does not match."""
    calls = description["custom_calls"]
    problems = []
    if len(calls) != 1:
        return [f"expected one custom_call, found {len(calls)}"]
    call = calls[0]
    for key, wanted in expect.items():
        actual = description["outputs"] if key == "outputs" else call.get(key)
        if actual != wanted:
            problems.append(f"{key}: expected {wanted!r}, got {actual!r}")
    return problems
