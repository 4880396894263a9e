"""Shared test helpers: run the real CLI, and lower modules with the real jax."""

from __future__ import annotations

import dataclasses

import os
import shlex
import subprocess
import sys
from typing import Sequence

from codemods.cli import build_parser, installed_jax
from codemods.context import Options
from codemods.engine import process_source
from codemods.rules import all_rules, select_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTDATA = os.path.join(ROOT, "testdata")
ARGS_MARK = b"# ccmigrate-args:"


#: In a fixture's flags: run every rule, as plain ``ccmigrate`` does (not only the folder's).
EVERY_RULE = "--every-rule"


def fixture_args(source: bytes) -> list[str]:
    """Flags a fixture asks for on its first line: ``# ccmigrate-args: --unsafe-fixes``
    (without the fixtures' own ``--every-rule``, see :func:`fixture_runs_every_rule`)."""
    first = source.split(b"\n", 1)[0]
    if first.startswith(ARGS_MARK):
        return [a for a in shlex.split(first[len(ARGS_MARK):].decode()) if a != EVERY_RULE]
    return []


def fixture_runs_every_rule(source: bytes) -> bool:
    first = source.split(b"\n", 1)[0]
    return first.startswith(ARGS_MARK) and EVERY_RULE in shlex.split(first[len(ARGS_MARK):].decode())


def options_from(args: Sequence[str]) -> tuple[Options, frozenset | None, frozenset]:
    ns = build_parser().parse_args(["diff", *args, "x.py"])
    options = Options(
        # The installed jax, as the command line defaults to (the fixtures' expected files
        # were written on 0.10.2; under a later jax the rules see what that one lacks).
        target_jax=ns.target_jax or installed_jax(),
        unsafe_fixes=bool(ns.unsafe_fixes),
        annotate=bool(ns.annotate),
    )
    return options, ns.select, ns.ignore or frozenset()


def rewrite_source(source: bytes, path: str = "fixture.py", args: Sequence[str] = ()):
    """Run the selected rules on ``source`` as ``ccmigrate diff ARGS`` would."""
    options, select, ignore = options_from(args)
    rules = select_rules(select, ignore)
    options = dataclasses.replace(options, every_rule=len(rules) == len(all_rules()))
    return process_source(path, source, rules, options)


def child_env(env: dict | None = None) -> dict:
    """This environment (plus ``env``) with the checkout first on PYTHONPATH, keeping what
    the path held: a machine whose jax or LibCST comes from PYTHONPATH keeps them."""
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, full_env.get("PYTHONPATH")]))
    return full_env


def ccmigrate(*args: str, cwd: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """The real command line, in a subprocess, as a user runs it."""
    full_env = child_env(env)
    return subprocess.run(
        [sys.executable, "-m", "codemods", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=600,
    )
