"""How much of a set of repositories' missing-jax-API use one ``ccmigrate apply`` removes.

    python benchmarks/migration_rate.py CORPUS [--repo SUBSTR] [--show] [-- APPLY-ARGS...]

``CORPUS`` holds one folder per repository (a snapshot taken before its authors migrated).
Each is copied to a scratch folder, counted with ``benchmarks/missing_apis.py``, migrated
with ``python -m codemods apply -q --allow-dirty --report ...`` (plus APPLY-ARGS, e.g.
``--unsafe-fixes --annotate``), counted again, then migrated a second time. Per repository
it prints the references before and after and each reference left; ``--show`` adds the
report entry that accounts for it. Last comes the total, then a ``PROBLEM`` line for each
file the migration left unparsable, each repository the second run changed, and each
reference left that no unapplied report entry of its file names (the bar a migration must
meet: every leftover reported as manual or unsafe, with its reason). Exit status 1 when
there is a problem.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from codemods.positions import line_map  # noqa: E402

COUNTER = os.path.join(ROOT, "benchmarks", "missing_apis.py")


def _count(path: str) -> dict:
    out = subprocess.run([sys.executable, COUNTER, "--json", path], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def _digest(path: str) -> str:
    h = hashlib.sha256()
    for folder, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(folder, name)
            h.update(os.path.relpath(full, path).encode())
            with open(full, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()


def _apply(path: str, extra: list[str], report: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "codemods", "apply", "-q", "--allow-dirty",
               *(["--report", report] if report else []), *extra, path]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run(command, capture_output=True, text=True, cwd=os.path.dirname(path), env=env)


def _pending(report_path: str) -> dict[str, list[dict]]:
    """Unapplied report entries (manual, or unsafe without --unsafe-fixes) by real path."""
    if not os.path.exists(report_path):
        return {}
    with open(report_path) as fh:
        report = json.load(fh)
    pending: dict[str, list[dict]] = {}
    for entry in report["files"]:
        for change in entry["changes"]:
            if not change["applied"]:
                pending.setdefault(os.path.realpath(entry["path"]), []).append(change)
    return pending


def _accounting(reference: dict, pending: dict[str, list[dict]]) -> dict | None:
    """The unapplied entry of the reference's file that names what it refers to."""
    changes = pending.get(os.path.realpath(reference["path"]), ())
    parts = reference["name"].split(".")
    # The entry naming the longest tail of the reference: ``jax.xla`` is the entry about
    # ``jax.xla._force``, not the first one whose message mentions some ``xla``.
    # Among those, one on the reference's own line, and a manual one, first: an unsafe fix
    # that was not applied may sit beside the manual entry that says why the site stays.
    for size in range(len(parts), 0, -1):
        tail = ".".join(parts[-size:])
        found = [c for c in changes if tail in (c["before"] or "") or tail in c["message"]]
        if found:
            return min(found, key=lambda c: (c.get("line") != reference.get("line"), c["safety"] != "manual"))
    return None


def _sources(root: str) -> dict[str, bytes]:
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, "rb") as fh:
                    found[os.path.realpath(path)] = fh.read()
    return found


def _original_line(reference: dict, before: dict[str, bytes], maps: Optional[dict] = None) -> int:
    """The line of the file as it was (the report's lines) where the migrated file's line
    ``reference["line"]`` came from; ``maps`` keeps each file's line map (read once)."""
    path = os.path.realpath(reference["path"])
    if path not in before:
        return reference["line"]
    maps = {} if maps is None else maps
    if path not in maps:
        with open(path, "rb") as fh:
            maps[path] = line_map(fh.read(), before[path])
    return maps[path](reference["line"])


def measure(corpus: str, repo_filter: str, extra: list[str], show: bool) -> int:
    before_total = after_total = 0
    problems: list[str] = []
    for repo in sorted(os.listdir(corpus)):
        if repo_filter not in repo or not os.path.isdir(os.path.join(corpus, repo)):
            continue
        scratch = tempfile.mkdtemp(prefix="ccmigrate-rate-")
        try:
            copy = os.path.join(scratch, repo)
            shutil.copytree(os.path.join(corpus, repo), copy)
            before = _count(copy)
            sources = _sources(copy)
            report = os.path.join(scratch, "report.json")
            run = _apply(copy, extra, report)
            after = _count(copy)
            digest = _digest(copy)
            _apply(copy, extra)
            if _digest(copy) != digest:
                problems.append(f"{repo}: a second apply changed files")
            for path in sorted(set(after["unparsable"]) - set(before["unparsable"])):
                problems.append(f"{repo}: {os.path.relpath(path, copy)} no longer parses")
            pending = _pending(report)
            n_before, n_after = len(before["references"]), len(after["references"])
            before_total += n_before
            after_total += n_after
            status = "" if run.returncode in (0, 1) else f"  (apply exited {run.returncode}: {run.stderr.strip()[-300:]})"
            print(f"{repo}: {n_before} -> {n_after}{status}")
            maps: dict = {}
            for reference in after["references"]:
                where = f"{os.path.relpath(reference['path'], copy)}:{reference['line']}"
                change = _accounting({**reference, "line": _original_line(reference, sources, maps)}, pending)
                if change is None:
                    problems.append(f"{repo}: {where} {reference['name']} is left and not in the report")
                print(f"    {where}: {reference['name']}{'' if change else '   [NOT REPORTED]'}")
                if show and change:
                    print(f"        [{change['rule']} {change['safety']}] {change['message'][:240]}")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    removed = 100.0 * (before_total - after_total) / before_total if before_total else 100.0
    print(f"TOTAL {before_total} -> {after_total} ({removed:.1f}% removed)")
    for problem in problems:
        print(f"PROBLEM {problem}")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", help="a folder with one folder per repository")
    parser.add_argument("--repo", default="", help="only repositories whose folder name contains this")
    parser.add_argument("--show", action="store_true", help="print the report entry behind each reference left")
    args = parser.parse_args(argv)
    return measure(os.path.abspath(args.corpus), args.repo, extra, args.show)


if __name__ == "__main__":
    sys.exit(main())
