"""Command line: parse arguments, call the engine, print. Nothing else lives here.

Exit codes: ``diff`` 0 when nothing would change, 1 when changes are pending, 2 when any
path or file failed (or the configuration is wrong); ``apply`` and ``review`` 0, or 2
when any file failed. ``verify`` (and ``apply --verify``): 0 when no site failed, 1 when
one did (or, with ``--strict``, was not reached), 2 on a tool error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Optional, Sequence

from codemods import __version__, config, formats, mdreport, report, shard
from codemods.context import Options
from codemods.engine import run
from codemods.progress import Progress
from codemods.rules import all_rules, select_rules
from codemods.writer import write_all

EXIT_OK, EXIT_PENDING, EXIT_ERROR = 0, 1, 2


def installed_jax() -> tuple[int, ...]:
    """The installed jax release, read from its metadata (importing jax costs ~1 s).

    The ``jax-<version>.dist-info`` folder on ``sys.path`` names it; ``importlib.metadata``
    gives the same answer but its own imports cost a tenth of a second on every run.
    """
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith("jax-") and name.endswith(".dist-info"):
                return parse_version(name[len("jax-"):-len(".dist-info")])
    from importlib import metadata

    try:
        return parse_version(metadata.version("jax"))
    except metadata.PackageNotFoundError:
        return Options().target_jax


def beyond_installed(target: tuple[int, ...], installed: tuple[int, ...]) -> Optional[str]:
    """A one-line notice when ``target`` is newer than the ``installed`` jax: what the rules
    know of removed names comes from the installed jax's source, so names a later release
    removed are left as they are (``None`` when the target is the installed jax or older)."""
    if tuple(target) <= tuple(installed):
        return None
    shown = ".".join(map(str, target))
    return (f"ccmigrate: --target-jax {shown} is newer than the installed jax {'.'.join(map(str, installed))}: "
            f"names removed after it are not known here and are left as they are; run ccmigrate where jax "
            f"{shown} is installed (jax 0.11 and newer need Python 3.12 or newer)")


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


PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


def _platform_list(text: str) -> list[str]:
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in PLATFORMS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown platform(s) {', '.join(unknown) or text!r}; choose from {', '.join(PLATFORMS)}")
    return list(dict.fromkeys(names))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ccmigrate",
        description="Migrate legacy JAX custom-call code to forms current jax accepts.",
    )
    parser.add_argument("--version", action="version", version=f"ccmigrate {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("paths", nargs="+", metavar="PATH", help="files or directories to migrate")
    # Flags left unset are None, so [tool.ccmigrate] in pyproject.toml fills them in.
    common.add_argument("--select", type=_rule_list, default=None, metavar="RULE[,RULE]", help="run only these rules")
    common.add_argument("--ignore", type=_rule_list, default=None, metavar="RULE[,RULE]", help="skip these rules")
    common.add_argument("--exclude", action="append", default=None, metavar="GLOB", help="skip paths matching GLOB (repeatable)")
    common.add_argument("-j", "--jobs", type=int, default=1, metavar="N", help="worker processes (0: one per CPU)")
    common.add_argument("--report", metavar="FILE", help="write a JSON report of every change to FILE")
    common.add_argument("--report-md", metavar="FILE", help="write a Markdown migration report to FILE")
    common.add_argument("--unsafe-fixes", action=argparse.BooleanOptionalAction, default=None, help="also apply fixes that need review")
    common.add_argument("--annotate", action=argparse.BooleanOptionalAction, default=None, help="write manual follow-ups as '# TODO(ccmigrate): ...' comments")
    common.add_argument("--target-jax", type=parse_version, default=None, metavar="X.Y[.Z]", help="jax release the result must run on (default: the installed one)")
    common.add_argument("--config", metavar="PYPROJECT", help="read [tool.ccmigrate] from this file instead of the nearest pyproject.toml")
    common.add_argument("--shard", type=_shard, default=None, metavar="K/N", help="process only shard K of N of the files (for a CI matrix)")
    common.add_argument("-q", "--quiet", action="store_true", help="print only errors and the diff")
    output = argparse.ArgumentParser(add_help=False)
    output.add_argument("--output-format", choices=formats.FORMATS, default="text", help="what to print on stdout (default: text)")

    commands.add_parser("diff", parents=[common, output], help="show the changes as a unified diff; write nothing")
    apply = commands.add_parser("apply", parents=[common, output], help="rewrite files in place")
    apply.add_argument("--allow-dirty", action="store_true", help="also rewrite files with uncommitted changes")
    apply.add_argument("--verify", action="store_true", help="then verify the rewritten files by lowering them (imports and runs their code)")
    _verify_options(apply, with_report=False)

    check = commands.add_parser(
        "verify",
        parents=[output],
        help="import and lower the code under PATH, and report every custom-call site's status",
        description="Import (execute) the modules under PATH in worker processes, lower their entry points "
        "with jax for each platform, and give every custom-call site a status: verified, failed or unreached. "
        "This runs the code under PATH; use --static to list sites without importing anything.",
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help="files or directories to verify")
    check.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="skip paths matching GLOB (repeatable)")
    check.add_argument("--report", metavar="FILE", help="write a JSON report of every site to FILE")
    check.add_argument("--report-md", metavar="FILE", help="write a Markdown report with the verification table to FILE")
    check.add_argument("--static", action="store_true", help="only list the sites; import nothing")
    check.add_argument("-q", "--quiet", action="store_true", help="print only failed sites and the summary")
    _verify_options(check, with_report=True)
    review = commands.add_parser("review", parents=[common], help="accept or skip each change interactively, then write the accepted ones")
    review.add_argument("--allow-dirty", action="store_true", help="also rewrite files with uncommitted changes")
    merge = commands.add_parser("merge-reports", parents=[output], help="merge the JSON reports of --shard runs into one")
    merge.add_argument("reports", nargs="+", metavar="REPORT", help="JSON reports written with --report")
    merge.add_argument("-o", "--output", required=True, metavar="FILE", help="where to write the merged JSON report")
    merge.add_argument("--report-md", metavar="FILE", help="also write a Markdown migration report to FILE")
    commands.add_parser("rules", help="list the rules")
    return parser


def _verify_options(parser: argparse.ArgumentParser, with_report: bool) -> None:
    group = parser.add_argument_group("verification")
    group.add_argument("--platforms", type=_platform_list, default=None, metavar="P[,P]", help="platforms to lower for: cpu, cuda, rocm, tpu (default: jax's default backend)")
    group.add_argument("--strict", action="store_true", help="also fail when a site is not reached by any entry point")
    group.add_argument("--timeout", type=float, default=60.0, metavar="S", help="seconds one module may take (default 60)")
    group.add_argument("--memory-limit", type=int, default=4096, metavar="MB", help="memory a worker may allocate beyond jax itself (default 4096)")
    group.add_argument("--workers", type=int, default=2, metavar="N", help="at most N verification worker processes (default 2; a second starts only when the work left pays for it)")
    group.add_argument("--stub-missing", action="store_true", help="stand in for compiled extensions that are not built")
    group.add_argument("--compile", action="store_true", help="also compile and run where the targets are registered in this process")
    if not with_report:
        group.add_argument("--verify-report", metavar="FILE", help="write the verification's JSON report to FILE")


def _shard(text: str) -> tuple[int, int]:
    try:
        return shard.parse_shard(text)
    except shard.ShardError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "rules":
        for rule in all_rules():
            print(f"{rule.name:24} {rule.summary}")
        return EXIT_OK
    if args.command == "verify":
        return verify_command(args, args.paths, None, args.report)
    if args.command == "merge-reports":
        return merge_reports(args)
    return migrate(args)


def verify_command(
    args: argparse.Namespace,
    paths: Sequence[str],
    originals: Optional[dict],
    report_path: Optional[str],
    migration: Optional[dict] = None,
) -> int:
    """Verify ``paths``; ``migration`` is the JSON report of the ``apply`` that preceded it."""
    from codemods.verify import VerifyOptions, table, verify

    options = VerifyOptions(
        platforms=args.platforms,
        timeout=args.timeout,
        memory_limit_mb=args.memory_limit,
        workers=args.workers,
        stub_missing=args.stub_missing,
        compile=args.compile,
        static=getattr(args, "static", False),
        excludes=tuple(args.exclude or ()),
    )
    result = verify(paths, options, originals)
    for error in result.errors:
        print(error, file=sys.stderr)
    sites = result.to_json()["sites"]
    fmt = args.output_format
    if fmt == "text":
        for line in table(result, quiet=args.quiet):
            print(line)
    elif migration is not None and fmt == "json":
        sys.stdout.write(formats.render({**migration, "verification": result.to_json()}, "json"))
    elif migration is not None and fmt == "sarif":
        sys.stdout.write(json.dumps(formats.combined_sarif(migration, sites), indent=2) + "\n")
    else:
        sys.stdout.write(formats.render_sites(sites, fmt))
    if report_path:
        report.write_json(report_path, result.to_json())
    if args.report_md:
        mdreport.write_markdown(args.report_md, migration, sites)
    return result.exit_code(args.strict)


def settings(args: argparse.Namespace) -> config.Settings:
    """Command-line flags over ``[tool.ccmigrate]``; raises :class:`config.ConfigError`."""
    return config.resolve(
        config.load(args.paths, args.config),
        select=args.select,
        ignore=args.ignore,
        exclude=args.exclude,
        target_jax=args.target_jax,
        unsafe_fixes=args.unsafe_fixes,
        annotate=args.annotate,
    )


def migrate(args: argparse.Namespace) -> int:
    try:
        chosen = settings(args)
        rules = select_rules(chosen.select, chosen.ignore)
    except (config.ConfigError, ValueError) as exc:
        print(f"ccmigrate: {exc}", file=sys.stderr)
        return EXIT_ERROR
    installed = installed_jax()
    options = Options(
        target_jax=chosen.target_jax or installed,
        unsafe_fixes=chosen.unsafe_fixes,
        annotate=chosen.annotate,
        every_rule=len(rules) == len(all_rules()),
    )
    notice = beyond_installed(options.target_jax, installed)
    if notice:
        print(notice, file=sys.stderr)
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    applying = args.command == "apply"
    writing = applying or args.command == "review"
    include = shard.selector(args.paths, *args.shard) if args.shard else None
    progress = Progress(label="candidate files") if Progress.wanted(sys.stderr, args.quiet) else None
    try:
        results, scanned = run(
            args.paths, rules, options, excludes=chosen.exclude, jobs=jobs, clean_temps=writing, include=include,
            progress=progress,
        )
    finally:
        if progress is not None:
            progress.close()
    fmt = getattr(args, "output_format", "text")
    if args.command == "review":
        from codemods.review import review

        outcome = review(
            results, rules, options, stdin=sys.stdin, stdout=sys.stdout,
            colour=formats.use_colour(sys.stdout), allow_dirty=args.allow_dirty,
        )
        by_path = {r.path: r for r in outcome.results}
        results = [by_path.get(r.path, r) for r in results]
        print(f"{outcome.accepted} change(s) accepted, {outcome.skipped} skipped; {outcome.files_written} file(s) written", file=sys.stderr)
    elif args.command == "apply":
        write_all(results, allow_dirty=args.allow_dirty)
    elif fmt == "text":
        colour = formats.use_colour(sys.stdout)
        for result in results:
            if not result.error:
                diff = report.unified_diff(result)
                sys.stdout.write(formats.colour_diff(diff) if colour and diff else diff)
    data = report.to_json(results, scanned, args.command)
    written = {r.path: r.original for r in results if r.changed and not r.error} if applying else {}
    verifying = bool(applying and args.verify and written and not data["summary"]["files_failed"])
    # apply --verify prints one json/sarif document for both steps, once verification is done.
    if fmt != "text" and not (verifying and fmt in ("json", "sarif")):
        sys.stdout.write(formats.render(data, fmt))
    for result in results:
        if result.error:
            print(f"{result.path}: {result.error}", file=sys.stderr)
    if not args.quiet and args.command != "review":
        if fmt == "text":
            for line in report.change_lines(r for r in results if not r.error):
                print(line, file=sys.stderr)
        verb = "rewritten" if writing else "would be rewritten"
        print(report.summary_line(data["summary"], verb), file=sys.stderr)
    if args.report:
        report.write_json(args.report, data)
    if args.report_md and not verifying:
        mdreport.write_markdown(args.report_md, data)
    if data["summary"]["files_failed"]:
        return EXIT_ERROR
    if not writing and data["summary"]["files_changed"]:
        return EXIT_PENDING
    if applying and args.verify:
        if not written:
            print("nothing was rewritten; nothing to verify", file=sys.stderr)
            return EXIT_OK
        return verify_command(args, sorted(written), written, args.verify_report, migration=data)
    return EXIT_OK


def merge_reports(args: argparse.Namespace) -> int:
    try:
        data = shard.merge(shard.load_reports(args.reports))
    except shard.ShardError as exc:
        print(f"ccmigrate: {exc}", file=sys.stderr)
        return EXIT_ERROR
    report.write_json(args.output, data)
    if args.report_md:
        mdreport.write_markdown(args.report_md, data)
    if args.output_format != "text":
        sys.stdout.write(formats.render(data, args.output_format))
    else:
        print(report.summary_line(data["summary"], "rewritten" if data["command"] == "apply" else "would be rewritten"))
    return EXIT_OK
