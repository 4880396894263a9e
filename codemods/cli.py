"""Command line: parse arguments, call the engine, print. Nothing else lives here.

Exit codes: ``diff`` 0 when nothing would change, 1 when changes are pending, 2 when any
path or file failed; ``apply`` 0, or 2 when any file failed.
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import metadata
from typing import Optional, Sequence

from codemods import __version__, report
from codemods.context import Options
from codemods.engine import run
from codemods.rules import all_rules, select_rules
from codemods.writer import write_all

EXIT_OK, EXIT_PENDING, EXIT_ERROR = 0, 1, 2


def installed_jax() -> tuple[int, ...]:
    """The installed jax release, read from its metadata (importing jax costs ~1 s)."""
    try:
        return parse_version(metadata.version("jax"))
    except metadata.PackageNotFoundError:
        return Options().target_jax


def parse_version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    if not parts:
        raise argparse.ArgumentTypeError(f"not a jax version: {text!r}")
    return tuple(parts) + (0,) * (3 - len(parts))


def _rule_list(text: str) -> frozenset[str]:
    return frozenset(name.strip() for name in text.split(",") if name.strip())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ccmigrate",
        description="Migrate legacy JAX custom-call code to forms current jax accepts.",
    )
    parser.add_argument("--version", action="version", version=f"ccmigrate {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("paths", nargs="+", metavar="PATH", help="files or directories to migrate")
    common.add_argument("--select", type=_rule_list, default=None, metavar="RULE[,RULE]", help="run only these rules")
    common.add_argument("--ignore", type=_rule_list, default=frozenset(), metavar="RULE[,RULE]", help="skip these rules")
    common.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="skip paths matching GLOB (repeatable)")
    common.add_argument("-j", "--jobs", type=int, default=1, metavar="N", help="worker processes (0: one per CPU)")
    common.add_argument("--report", metavar="FILE", help="write a JSON report of every change to FILE")
    common.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes that need review")
    common.add_argument("--annotate", action="store_true", help="write manual follow-ups as '# TODO(ccmigrate): ...' comments")
    common.add_argument("--target-jax", type=parse_version, default=None, metavar="X.Y[.Z]", help="jax release the result must run on (default: the installed one)")
    common.add_argument("-q", "--quiet", action="store_true", help="print only errors and the diff")

    commands.add_parser("diff", parents=[common], help="show the changes as a unified diff; write nothing")
    apply = commands.add_parser("apply", parents=[common], help="rewrite files in place")
    apply.add_argument("--allow-dirty", action="store_true", help="also rewrite files with uncommitted changes")
    commands.add_parser("rules", help="list the rules")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "rules":
        for rule in all_rules():
            print(f"{rule.name:24} {rule.summary}")
        return EXIT_OK
    return migrate(args)


def migrate(args: argparse.Namespace) -> int:
    try:
        rules = select_rules(args.select, args.ignore)
    except ValueError as exc:
        print(f"ccmigrate: {exc}", file=sys.stderr)
        return EXIT_ERROR
    options = Options(
        target_jax=args.target_jax or installed_jax(),
        unsafe_fixes=args.unsafe_fixes,
        annotate=args.annotate,
    )
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    applying = args.command == "apply"
    results, scanned = run(args.paths, rules, options, excludes=args.exclude, jobs=jobs, clean_temps=applying)
    if applying:
        write_all(results, allow_dirty=args.allow_dirty)
    else:
        for result in results:
            if not result.error:
                sys.stdout.write(report.unified_diff(result))
    data = report.to_json(results, scanned, args.command)
    for result in results:
        if result.error:
            print(f"{result.path}: {result.error}", file=sys.stderr)
    if not args.quiet:
        for line in report.change_lines(r for r in results if not r.error):
            print(line, file=sys.stderr)
        verb = "rewritten" if applying else "would be rewritten"
        print(report.summary_line(data["summary"], verb), file=sys.stderr)
    if args.report:
        report.write_json(args.report, data)
    if data["summary"]["files_failed"]:
        return EXIT_ERROR
    if not applying and data["summary"]["files_changed"]:
        return EXIT_PENDING
    return EXIT_OK
