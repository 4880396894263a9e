"""The ``ccmigrate`` command's first moments: for ``verify``, start a worker at once.

A verification worker spends about a second importing jax before it can lower
anything; the command line spends a good part of a second importing LibCST and the
rules before it has even read its arguments. Started here, before those imports, the
worker's jax import overlaps them and the scan of the files (with ``apply --verify``,
the rewrite), instead of following them.
Everything else goes straight to :func:`codemods.cli.main`.
"""

from __future__ import annotations

import sys
from typing import Optional, Sequence

#: Flags after which ``verify`` imports nothing (or the command does not run at all).
NO_WORKER_FLAGS = frozenset({"--static", "-h", "--help", "--version"})
PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if verifies(args):
        from codemods.verify import pool

        pool.start_early(platforms(args))
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
