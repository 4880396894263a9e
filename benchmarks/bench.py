"""Time ccmigrate side by side with the floor, LibCST's runner and Bowler.

    make bench                                   # default repository, all tools
    .venv/bin/python benchmarks/bench.py --files 500 --lines 100000 --rounds 3
    .venv/bin/python benchmarks/bench.py --repo ~/src/monorepo --skip bowler

Every tool runs as a separate process, whole-process wall time, in rounds that
alternate the order, so a busy neighbour or a warm page cache favours no one:

* ``floor``: walk the tree, read every ``.py`` file, test the rules' trigger bytes.
  Nothing that must look at every file can be faster in Python.
* ``floor+parse``: the floor, then ``libcst.parse_module`` of the candidate files alone
  (collector frozen). ccmigrate's target is at most 1.5x this.
* ``ccmigrate -j 1`` / ``-j N``: ``ccmigrate diff -q`` with all rules.
* ``libcst runner``: ``python -m libcst.tool codemod`` running the backend-config rule
  through :mod:`codemods.adapters.libcst_command` (the same edits), ``--no-format``,
  unified diff to a file, ``-j N``.
* ``bowler``: a Bowler query selecting the same calls and applying the same
  dict-to-``json.dumps`` rewrite; files it cannot parse are counted.
* ``ccmigrate verify`` over the rewritten modules, when the command exists.

Peak memory is the largest sum of proportional set sizes (PSS: shared pages split
between the processes sharing them) over the process tree, sampled every 50 ms, and the
largest single-process RSS from ``wait4``. The results go to ``benchmarks/results.md``.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
PY = sys.executable


# -- measuring one process ----------------------------------------------------------


@dataclass
class Sample:
    wall: float
    peak_mb: float  # sampled PSS sum of the process tree
    max_rss_mb: float  # largest single process (wait4)
    rc: int
    cpu: float = 0.0  # user + system seconds of the process and the children it waited for
    stdout: str = ""
    stderr: str = ""


def _children(pid: int) -> list[int]:
    found, stack = [], [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/task/{p}/children") as fh:
                kids = [int(k) for k in fh.read().split()]
        except OSError:
            kids = []
        found.extend(kids)
        stack.extend(kids)
    return found


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except OSError:
        return 0


def run_measured(argv: list[str], cwd: Optional[str] = None, env: Optional[dict] = None, timeout: float = 3600) -> Sample:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err)
        peak = [0]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.05):
                total = sum(_pss_kb(p) for p in [proc.pid, *_children(proc.pid)])
                peak[0] = max(peak[0], total)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
            time.sleep(0.005)
        wall = time.perf_counter() - start
        done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Sample(
            wall=wall,
            peak_mb=peak[0] / 1024,
            max_rss_mb=usage.ru_maxrss / 1024,
            rc=proc.returncode,
            cpu=usage.ru_utime + usage.ru_stime,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
        )


# -- the tools ----------------------------------------------------------------------


@dataclass
class Tool:
    name: str
    argv: list[str]
    peer: bool = False  # slow peers may run fewer rounds
    env: Optional[dict] = None
    check: Optional[Callable[[Sample], str]] = None  # -> note about what the run found
    samples: list[Sample] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _count_diff_files(sample: Sample) -> str:
    files = len(re.findall(r"^\+\+\+ ", sample.stdout, re.M))
    return f"{files} files in diff"


def _bowler_note(sample: Sample) -> str:
    try:
        data = json.loads(sample.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return f"no summary (exit {sample.rc}): {sample.stderr.strip()[-200:]}"
    return f"{data['files_changed']} files changed, {data['sites']} sites rewritten, {data['parse_failures']} files failed to parse, {data['exceptions']} exceptions"


def tools_for(root: str, triggers: list[bytes], jobs: int, skip: set[str]) -> list[Tool]:
    trig = [t.hex() for t in triggers]
    ccm = [os.path.join(os.path.dirname(PY), "ccmigrate")]
    if not os.path.exists(ccm[0]):
        ccm = [PY, "-m", "codemods"]
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    tools = [
        Tool("floor", [PY, __file__, "_floor", root, *trig]),
        Tool("floor+parse", [PY, __file__, "_parse", root, *trig]),
        Tool("ccmigrate -j 1", [*ccm, "diff", "-q", "-j", "1", root], check=_count_diff_files),
        Tool(f"ccmigrate -j {jobs}", [*ccm, "diff", "-q", "-j", str(jobs), root], check=_count_diff_files),
        Tool(
            "libcst runner",
            [PY, "-m", "libcst.tool", "codemod", "-x", "codemods.adapters.libcst_command.BackendConfigCommand",
             "--no-format", "--unified-diff", "3", "--hide-progress", "-j", str(jobs), root],
            peer=True, env=env, check=_count_diff_files,
        ),
        Tool("bowler", [PY, __file__, "_bowler", root], peer=True, env=env, check=_bowler_note),
    ]
    return [t for t in tools if t.name.split()[0] not in skip and t.name not in skip]


# -- the floor and the parse reference (run as their own processes) ------------------


def _walk(root: str):
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "node_modules"))
        for name in files:
            if name.endswith(".py"):
                yield os.path.join(directory, name)


def floor_main(root: str, triggers: list[bytes], parse: bool) -> None:
    candidates = []
    for path in _walk(root):
        with open(path, "rb") as fh:
            source = fh.read()
        if any(t in source for t in triggers):
            candidates.append(source)
    if parse:
        import gc

        import libcst

        for source in candidates:
            gc.freeze()
            try:
                libcst.parse_module(source)
            except Exception:  # noqa: BLE001 - a file the parser rejects still cost a parse
                pass
            finally:
                gc.unfreeze()
    print(len(candidates))


# -- the Bowler query (run as its own process) --------------------------------------

BOWLER_FUNCTIONS = ("custom_call", "ffi_lowering", "build_ffi_lowering_function", "ffi_call")
JSON_KW = 'sort_keys=True, separators=(",", ":")'


def bowler_main(root: str) -> None:
    """Select every call of a custom-call API and serialise a literal config with json.dumps.

    The same candidate set as ``backend-config`` by name (Bowler matches the called name
    whatever the receiver, without resolving imports) and the same rewrite of dict, list,
    tuple, number and bool literals; what Bowler cannot parse is counted.
    """
    import logging

    from bowler import Query
    from fissix import pytree
    from fissix.fixer_util import touch_import
    from fissix.pgen2 import token
    from fissix.pygram import python_symbols as syms

    counts = {"sites": 0, "parse_failures": 0, "files": set()}

    class Count(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            message = record.getMessage()
            if "failed to parse" in message or "Can't parse" in message:
                counts["parse_failures"] += 1

    logging.getLogger().addHandler(Count())
    logging.getLogger().setLevel(logging.ERROR)
    literal = {syms.atom, syms.factor}

    def needs_json(value) -> bool:
        if value.type == token.NUMBER or (value.type == token.NAME and value.value in ("True", "False")):
            return True
        if value.type in literal:
            first = value.children[0]
            return first.type in (token.LBRACE, token.LSQB, token.LPAR, token.MINUS) and not (
                first.type == token.LPAR and len(value.children) == 2
            )
        return False

    from fissix import pygram
    from fissix.pgen2 import driver

    expression_parser = driver.Driver(pygram.python_grammar_no_print_statement, convert=pytree.convert)

    def rewrite(node, capture, filename):
        if "function_call" not in capture:
            return node  # a def or an import of the same name
        arglist = capture.get("function_arguments")
        args = arglist[0].children if arglist and arglist[0].type == syms.arglist else list(arglist or [])
        for arg in args:
            if arg.type != syms.argument or len(arg.children) != 3:
                continue
            key, _, value = arg.children
            if key.type == token.NAME and key.value in ("backend_config", "legacy_backend_config") and needs_json(value):
                text = f"json.dumps({str(value).strip()}, {JSON_KW})"
                new = expression_parser.parse_string(text + "\n")
                expr = new.children[0].children[0]
                expr.remove()
                expr.prefix = value.prefix
                value.replace(expr)
                touch_import(None, "json", node)
                counts["sites"] += 1
                counts["files"].add(filename)
        return node

    query = Query(root)
    for name in BOWLER_FUNCTIONS:
        query = query.select_function(name).modify(rewrite).select_method(name).modify(rewrite)
    result = query.execute(interactive=False, write=False, silent=True)
    for exc in result.exceptions[:3]:
        print(f"bowler: {type(exc).__name__}: {exc} ({exc.__cause__!r})", file=sys.stderr)
    print(json.dumps({"files_changed": len(counts["files"]), "sites": counts["sites"],
                      "parse_failures": counts["parse_failures"], "exceptions": len(result.exceptions)}))


# -- verification ---------------------------------------------------------------------


def verify_available(ccm: list[str]) -> bool:
    proc = subprocess.run([*ccm, "--help"], capture_output=True, text=True)
    return re.search(r"\bverify\b", proc.stdout) is not None


# -- reporting ------------------------------------------------------------------------


def fmt(seconds: float) -> str:
    return f"{seconds:.2f}" if seconds < 100 else f"{seconds:.0f}"


def median(tool: Tool) -> float:
    return statistics.median(s.wall for s in tool.samples)


def cpu_median(tool: Tool) -> float:
    return statistics.median(s.cpu for s in tool.samples)


def results_markdown(args, stats: dict, tools: list[Tool], memory_rows: list, extra: list[str], command: str) -> str:
    by = {t.name: t for t in tools if t.samples}
    floor = median(by["floor"]) if "floor" in by else None
    ref = median(by["floor+parse"]) if "floor+parse" in by else None
    cpu_ref = cpu_median(by["floor+parse"]) if "floor+parse" in by else None
    load = os.getloadavg()
    lines = [
        "# Benchmark results",
        "",
        f"Reproduce: `{command}`",
        "",
        f"Machine: {os.cpu_count()} CPUs ({platform.machine()}), Python {platform.python_version()}, "
        f"load average at the end {load[0]:.1f}/{load[1]:.1f}/{load[2]:.1f} (a shared machine: read ratios, not absolutes). "
        f"{_versions()}",
        "",
        f"Repository: {stats['description']}: {stats['files']:,} files, {stats['lines']:,} lines"
        + (f", {stats['site_files']} lowering modules with {stats['sites']} backend_config sites, {stats['mention_files']} files mentioning backend_config without a site" if "sites" in stats else "")
        + ".",
        "",
        "Whole-process wall time in seconds, rounds alternating the order of the tools "
        "(ccmigrate's modules byte-compiled first, as an installed package is).",
        "",
        "| tool | runs | median s | min-max s | x floor | x floor+parse | median CPU s | CPU x floor+parse | peak memory MB (PSS, tree) | max RSS MB (one process) | what it found |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for tool in tools:
        if not tool.samples:
            continue
        walls = [s.wall for s in tool.samples]
        m = statistics.median(walls)
        lines.append(
            f"| {tool.name} | {len(walls)} | {fmt(m)} | {fmt(min(walls))}-{fmt(max(walls))} | "
            f"{m / floor:.1f} | {m / ref:.2f} | {fmt(cpu_median(tool))} | {cpu_median(tool) / cpu_ref:.2f} | {max(s.peak_mb for s in tool.samples):.0f} | "
            f"{max(s.max_rss_mb for s in tool.samples):.0f} | {'; '.join(sorted(set(tool.notes)))} |"
            if floor and ref else f"| {tool.name} | {len(walls)} | {fmt(m)} | {fmt(min(walls))}-{fmt(max(walls))} | | | {fmt(cpu_median(tool))} | | "
            f"{max(s.peak_mb for s in tool.samples):.0f} | {max(s.max_rss_mb for s in tool.samples):.0f} | {'; '.join(sorted(set(tool.notes)))} |"
        )
    ccm = [t for t in tools if t.name.startswith("ccmigrate -j") and t.samples]
    peers = [t for t in tools if t.peer and t.samples]
    if ccm and peers:
        lines += ["", "How many times slower each peer is than ccmigrate (median / median):", "",
                  "| peer | " + " | ".join(t.name for t in ccm) + " |", "|---|" + "---|" * len(ccm)]
        for peer in peers:
            lines.append(f"| {peer.name} | " + " | ".join(f"{median(peer) / median(t):.1f}x" for t in ccm) + " |")
    if memory_rows:
        lines += ["", f"Memory as the repository grows (`ccmigrate diff -j {args.jobs}`):", "",
                  "| files | lines | median s | peak memory MB (PSS, tree) | max RSS MB (one process) |", "|---|---|---|---|---|"]
        for files, nlines, wall, peak, rss in memory_rows:
            lines.append(f"| {files:,} | {nlines:,} | {fmt(wall)} | {peak:.0f} | {rss:.0f} |")
    lines += ["", *extra]
    return "\n".join(lines) + "\n"


def _versions() -> str:
    from importlib import metadata

    parts = []
    for dist in ("libcst", "bowler", "fissix", "jax"):
        try:
            parts.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            pass
    return ", ".join(parts) + "."


def _paired_ratios(tool: Tool, reference: Tool) -> list[float]:
    """Wall time of ``tool`` over ``reference`` within each round: both ran minutes
    apart at most, so a machine that slows down for a while moves both."""
    if len(tool.samples) != len(reference.samples):
        return []
    return [a.wall / max(b.wall, 1e-9) for a, b in zip(tool.samples, reference.samples)]


def targets(tools: list[Tool], memory_rows: list, jobs: int) -> list[str]:
    by = {t.name: t for t in tools if t.samples}
    fast = by.get(f"ccmigrate -j {jobs}")
    out = ["Targets:", ""]
    if not fast:
        return []

    def line(ok: bool, text: str) -> None:
        out.append(f"- [{'x' if ok else ' '}] {text}")

    m = median(fast)
    if "floor+parse" in by:
        ref = median(by["floor+parse"])
        cpu = cpu_median(fast) / max(cpu_median(by["floor+parse"]), 1e-9)
        paired = _paired_ratios(fast, by["floor+parse"])
        rounds = f"; round by round {statistics.median(paired):.2f}x, {min(paired):.2f}-{max(paired):.2f}x" if paired else ""
        line(m <= 1.5 * ref, f"`ccmigrate diff -j {jobs}` at most 1.5x floor+parse: {m / ref:.2f}x (CPU time, all processes: {cpu:.2f}x{rounds})")
    if "libcst runner" in by:
        r = median(by["libcst runner"]) / m
        line(r >= 30, f"at least 30x faster than LibCST's runner with the same rule: {r:.1f}x")
    if "bowler" in by:
        r = median(by["bowler"]) / m
        line(r > 1, f"faster than Bowler: {r:.1f}x")
    peak = max([s.peak_mb for s in fast.samples] + [row[3] for row in memory_rows])
    line(peak < 300, f"peak memory under 300 MB: {peak:.0f} MB")
    if len(memory_rows) >= 2:
        lo, hi = memory_rows[0], memory_rows[-1]
        growth = hi[3] / max(lo[3], 1)
        line(growth < 1.5, f"memory flat as the repository grows {hi[1] / max(lo[1], 1):.0f}x: peak {lo[3]:.0f} -> {hi[3]:.0f} MB")
    return out


# -- main -----------------------------------------------------------------------------


def main(argv: Optional[list[str]] = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] in ("_floor", "_parse"):
        floor_main(argv[1], [bytes.fromhex(t) for t in argv[2:]], parse=argv[0] == "_parse")
        return 0
    if argv and argv[0] == "_bowler":
        bowler_main(argv[1])
        return 0

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", help="benchmark this directory instead of a synthetic repository")
    parser.add_argument("--files", type=int, default=5000, help="synthetic repository size in files (default 5000)")
    parser.add_argument("--lines", type=int, default=1_000_000, help="synthetic repository size in lines (default 1,000,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the fast tools (default 5)")
    parser.add_argument("--peer-rounds", type=int, default=2, help="rounds of LibCST's runner and Bowler (default 2)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="parallel jobs (default: all cores)")
    parser.add_argument("--skip", default="", help="comma-separated tools to leave out: libcst, bowler, verify, memory")
    parser.add_argument("--sizes", default="0.25,0.5,1", help="fractions of the repository for the memory table")
    parser.add_argument("--verify-modules", type=int, default=40, help="lowering modules timed under verify (default 40)")
    parser.add_argument("--memory-rounds", type=int, default=2, help="runs per size of the memory table (default 2)")
    parser.add_argument("--out", default=os.path.join(HERE, "results.md"))
    parser.add_argument("--workdir", help="where to build repositories (default: a temporary folder)")
    args = parser.parse_args(argv)
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    command = "python benchmarks/bench.py " + " ".join(argv) if argv else "make bench"

    from codemods.rules import all_rules

    # An installed package carries its bytecode; an editable checkout under
    # PYTHONDONTWRITEBYTECODE would compile ccmigrate's own modules on every run (about a
    # tenth of a second), which users do not pay. LibCST's and Bowler's are compiled.
    compileall.compile_dir(os.path.join(ROOT, "codemods"), quiet=1)
    triggers = sorted({t for r in all_rules() for t in r.triggers})
    work = args.workdir or tempfile.mkdtemp(prefix="ccmigrate-bench-")
    os.makedirs(work, exist_ok=True)
    try:
        if args.repo:
            root = os.path.abspath(args.repo)
            stats = {"description": root, "files": sum(1 for _ in _walk(root)),
                     "lines": sum(open(p, "rb").read().count(b"\n") for p in _walk(root))}
        else:
            root, stats = _synthetic(work, args.files, args.lines, args.seed)
        tools = tools_for(root, triggers, args.jobs, skip)
        print(f"{stats['description']}: {stats['files']:,} files, {stats['lines']:,} lines; {os.cpu_count()} CPUs", file=sys.stderr)
        for round_ in range(max(args.rounds, args.peer_rounds)):
            order = tools[round_ % len(tools):] + tools[: round_ % len(tools)]
            for tool in order:
                if round_ >= (args.peer_rounds if tool.peer else args.rounds):
                    continue
                sample = run_measured(tool.argv, env=tool.env)
                tool.samples.append(sample)
                if tool.check:
                    tool.notes.append(tool.check(sample))
                if sample.rc not in (0, 1):
                    tool.notes.append(f"exit {sample.rc}: {sample.stderr.strip().splitlines()[-1:] or ''}")
                print(f"round {round_ + 1}: {tool.name:16} {sample.wall:8.2f} s  peak {sample.peak_mb:6.0f} MB  rss {sample.max_rss_mb:6.0f} MB  rc {sample.rc}", file=sys.stderr)
        extra = _apply_and_verify(root, work, args.jobs, skip, tools, args.verify_modules)
        memory_rows = [] if "memory" in skip or args.repo else _memory_rows(work, args, tools)
        extra = targets(tools, memory_rows, args.jobs) + [""] + extra
        text = results_markdown(args, stats, tools, memory_rows, extra, command)
        with open(args.out, "w") as fh:
            fh.write(text)
        print(text)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def _synthetic(work: str, files: int, lines: int, seed: int) -> tuple[str, dict]:
    from benchmarks.synthetic import generate

    root = os.path.join(work, f"repo-{files}-{lines}-{seed}")
    stamp = os.path.join(work, f"repo-{files}-{lines}-{seed}.json")
    if os.path.exists(stamp):
        with open(stamp) as fh:
            stats = json.load(fh)
    else:
        shutil.rmtree(root, ignore_errors=True)
        stats = generate(root, files, lines, seed)
        with open(stamp, "w") as fh:
            json.dump(stats, fh)
    stats["description"] = f"synthetic (seed {seed})"
    return root, stats


def _ccm() -> list[str]:
    path = os.path.join(os.path.dirname(PY), "ccmigrate")
    return [path] if os.path.exists(path) else [PY, "-m", "codemods"]


def _apply_and_verify(root: str, work: str, jobs: int, skip: set[str], tools: list[Tool], verify_modules: int = 40) -> list[str]:
    """``apply`` on a copy once, then ``verify`` over the modules it rewrote."""
    copy = os.path.join(work, "applied")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy)
    report = os.path.join(work, "apply-report.json")
    sample = run_measured([*_ccm(), "apply", "-q", "-j", str(jobs), "--report", report, copy])
    notes = [f"`ccmigrate apply -j {jobs}` on a copy, once: {sample.wall:.2f} s, peak {sample.peak_mb:.0f} MB, exit {sample.rc}."]
    again = run_measured([*_ccm(), "diff", "-q", "-j", str(jobs), copy])
    notes.append(f"`ccmigrate diff` on the applied copy (must find nothing): exit {again.rc}, {_count_diff_files(again)}.")
    if "verify" in skip:
        return notes + ["", "Verification: skipped (--skip verify)."]
    if not verify_available(_ccm()):
        return notes + ["", "**Verification: SKIPPED** - this checkout has no `ccmigrate verify` command yet; rerun `make bench` once it exists."]
    # The synthetic repository's lowering modules import jaxlib.hlo_helpers, gone from
    # current jaxlib, so they cannot be imported; verification is timed on a package of
    # lowering modules that can, rewritten by ``apply`` first.
    from benchmarks.synthetic import generate_verifiable

    kernels = os.path.join(work, "verifiable")
    shutil.rmtree(kernels, ignore_errors=True)
    modules = generate_verifiable(kernels, verify_modules)
    fixed = run_measured([*_ccm(), "apply", "-q", kernels])
    tool = Tool("ccmigrate verify", [*_ccm(), "verify", "-q", *modules])
    for _ in range(2):
        tool.samples.append(run_measured(tool.argv, cwd=kernels))
    m = median(tool)
    last = tool.samples[-1]
    tail = (last.stdout.strip() or last.stderr.strip()).splitlines()[-1:] or [""]
    one = run_measured([*_ccm(), "verify", "-q", modules[0]], cwd=kernels)
    cpu = statistics.median(s.cpu for s in tool.samples)
    return notes + ["", f"Verification: `ccmigrate verify -q` over {len(modules)} rewritten lowering modules "
                    f"(`apply` exit {fixed.rc}): median {m:.2f} s, {m / len(modules):.3f} s per module amortised "
                    f"(CPU time, all processes: {cpu:.2f} s, {cpu / len(modules):.3f} s per module) "
                    f"(one module alone: {one.wall:.2f} s, mostly starting jax; each further module {(m - one.wall) / max(len(modules) - 1, 1):.3f} s), peak {max(s.peak_mb for s in tool.samples):.0f} MB, "
                    f"exit {last.rc}: {tail[0]}",
                    "", f"- [{'x' if m / len(modules) <= 0.1 else ' '}] verification at most 0.1 s per module amortised: {m / len(modules):.3f} s"]


def _memory_rows(work: str, args, tools: list[Tool]) -> list:
    rows = []
    for fraction in (float(f) for f in args.sizes.split(",") if f.strip()):
        files, lines = max(int(args.files * fraction), 10), max(int(args.lines * fraction), 1000)
        main = next((t for t in tools if t.name == f"ccmigrate -j {args.jobs}" and t.samples), None)
        if fraction == 1 and main is not None:
            samples = main.samples  # the main table already measured this size
            root, stats = _synthetic(work, files, lines, args.seed)
        else:
            root, stats = _synthetic(work, files, lines, args.seed)
            samples = [run_measured([*_ccm(), "diff", "-q", "-j", str(args.jobs), root]) for _ in range(args.memory_rounds)]
        rows.append((stats["files"], stats["lines"], statistics.median(s.wall for s in samples),
                     max(s.peak_mb for s in samples), max(s.max_rss_mb for s in samples)))
        print(f"memory: {stats['files']:,} files {rows[-1][2]:.2f} s peak {rows[-1][3]:.0f} MB", file=sys.stderr)
    return rows


if __name__ == "__main__":
    sys.exit(main())
