"""The ``ccmigrate`` command's first moments: for ``verify``, start a worker at once.

A verification worker spends about a second importing jax before it can lower
anything; the command line spends a good part of a second importing LibCST and the
rules before it has even read its arguments. Started here, before those imports, the
worker's jax import overlaps them and the scan of the files (with ``apply --verify``,
the rewrite), instead of following them.
Everything else goes straight to :func:`codemods.cli.main`.
"""

from __future__ import annotations

import os
import sys
from typing import Optional, Sequence

#: Flags after which ``verify`` imports nothing (or the command does not run at all).
NO_WORKER_FLAGS = frozenset({"--static", "-h", "--help", "--version"})
PLATFORMS = ("cpu", "cuda", "rocm", "tpu")
#: The oldest LibCST the rules work with (pyproject.toml requires the same). An older one
#: found first on the path (a system site-packages, PYTHONPATH) fails deep in a rule, on
#: a node attribute it lacks, with an error that names no version.
MIN_LIBCST = (1, 4)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if verifies(args):
        from codemods.verify import pool

        pool.start_early(platforms(args))
    problem = libcst_problem()
    if problem:
        print(f"ccmigrate: {problem}", file=sys.stderr)
        return 2
    from codemods.cli import main as cli_main

    return cli_main(argv)


def verifies(args: Sequence[str]) -> bool:
    """Whether ``args`` run ``ccmigrate verify`` (or ``apply --verify``) with workers.

    A cheap guess from the words alone: argparse decides, and a worker nobody takes is
    killed at exit.
    """
    command = next((a for a in args if not a.startswith("-")), None)
    if any(a in NO_WORKER_FLAGS for a in args):
        return False
    return command == "verify" or (command == "apply" and "--verify" in args)


def platforms(args: Sequence[str]) -> list[str]:
    """The platforms ``--platforms`` names, for the worker's warm-up only."""
    text = ""
    for index, arg in enumerate(args):
        if arg == "--platforms" and index + 1 < len(args):
            text = args[index + 1]
        elif arg.startswith("--platforms="):
            text = arg.split("=", 1)[1]
    names = [name.strip().lower() for name in text.split(",")]
    return [name for name in dict.fromkeys(names) if name in PLATFORMS]


def libcst_problem() -> Optional[str]:
    """Why the LibCST this process would import cannot run the rules, or ``None``."""
    import importlib.util
    from importlib import metadata

    spec = importlib.util.find_spec("libcst")
    if spec is None:
        return "libcst is not installed: python -m pip install 'libcst>={}.{}'".format(*MIN_LIBCST)
    # The metadata beside the package that import would load, not another install's.
    site = os.path.dirname(os.path.dirname(spec.origin or ""))
    found = list(metadata.distributions(name="libcst", path=[site])) if site else []
    if not found:
        return None  # a source checkout of LibCST, or no metadata beside it: nothing to compare
    version = found[0].version
    parts = []
    for part in version.split(".")[:2]:
        digits = "".join(c for c in part if c.isdigit())
        parts.append(int(digits or 0))
    if tuple(parts) >= MIN_LIBCST:
        return None
    where = spec.origin or "?"
    return ("needs libcst >= {}.{}, but libcst {} is first on the path ({}): ".format(*MIN_LIBCST, version, where)
            + "python -m pip install --upgrade 'libcst>={}.{}'".format(*MIN_LIBCST))
