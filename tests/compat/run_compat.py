"""``make test-compat``: differential lowering across jax releases.

For every case in ``testdata/rules/*/compat.toml`` the legacy fixture is lowered (and,
for ``run`` cases, executed) under the jax release it names, in a virtual environment
``.compat/jax-<version>`` created on first use, and the fixture as ccmigrate rewrites it
is lowered under the installed jax. The custom_call ops must be identical: target,
api_version, backend_config bytes or typed attributes, layouts, side effect, operand
and result types. A case whose legacy form no release lowered (``jax = "never"``) is
held to the custom_call declared in its ``[case.expect]``. A rewrite made for an older
``--target-jax`` that the installed jax rejects is lowered on the release its case names
(``rewrite_jax``). Fields a case declares in ``differs`` (a change the rule makes on
purpose and does not call safe) are reported, not failed. Exit status 1 when any case
differs otherwise or fails.

Usage: ``python tests/compat/run_compat.py [-k SUBSTRING] [--python python3.11]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from tests.compat.custom_calls import describe_module  # noqa: E402
from tests.compat.declarations import Case, cases, mismatches, rewritten_source  # noqa: E402

EXTRACTOR = os.path.join(ROOT, "tests", "compat", "custom_calls.py")
VENVS = os.path.join(ROOT, ".compat")


def venv_python(version: str, python: str) -> str:
    """Interpreter of ``.compat/jax-<version>``, creating the environment if needed."""
    folder = os.path.join(VENVS, f"jax-{version}")
    exe = os.path.join(folder, "bin", "python")
    if os.path.exists(exe) and _has_jax(exe, version):
        return exe
    print(f"creating {os.path.relpath(folder, ROOT)} (jax=={version}) ...", flush=True)
    subprocess.run([python, "-m", "venv", "--clear", folder], check=True)
    # Releases before jax 0.4.31 were built against numpy 1; later ones may require 2.
    numpy = ["numpy<2"] if _release(version) < (0, 4, 31) else []
    subprocess.run(
        [exe, "-m", "pip", "install", "-q", f"jax=={version}", f"jaxlib=={version}", *numpy],
        check=True,
    )
    if not _has_jax(exe, version):
        raise RuntimeError(f"jax {version} did not install into {folder}")
    return exe


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".")[:3])


def _has_jax(exe: str, version: str) -> bool:
    probe = subprocess.run([exe, "-c", "import jax; print(jax.__version__)"], capture_output=True, text=True)
    return probe.returncode == 0 and probe.stdout.strip() == version


def legacy_description(case: Case, python: str) -> dict:
    exe = venv_python(case.jax, python)
    command = [exe, EXTRACTOR, case.fixture, case.entry] + (["--run"] if case.run else [])
    done = subprocess.run(command, capture_output=True, text=True, cwd=os.path.dirname(case.fixture))
    if done.returncode != 0:
        raise RuntimeError(f"legacy fixture failed on jax {case.jax}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def current_description(case: Case, python: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="ccm-compat-") as tmp:
        path = os.path.join(tmp, "rewritten_" + case.id.replace("/", "_").replace("-", "_").replace(":", "_") + ".py")
        with open(path, "wb") as fh:
            fh.write(rewritten_source(case))
        if case.rewrite_jax is None:
            return describe_module(path, case.entry, case.run)
        exe = venv_python(case.rewrite_jax, python)
        command = [exe, EXTRACTOR, path, case.entry] + (["--run"] if case.run else [])
        done = subprocess.run(command, capture_output=True, text=True, cwd=tmp)
        if done.returncode != 0:
            raise RuntimeError(f"rewrite failed on jax {case.rewrite_jax}: {done.stderr.strip().splitlines()[-1:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])


def compare(legacy: dict, current: dict, differs: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """Mismatching fields, and those of ``differs`` (declared on purpose) apart."""
    problems, declared = [], []
    if len(legacy["custom_calls"]) != len(current["custom_calls"]):
        problems.append(f"{len(legacy['custom_calls'])} custom_call op(s) before, {len(current['custom_calls'])} after")
    for before, after in zip(legacy["custom_calls"], current["custom_calls"]):
        for key in sorted(set(before) | set(after)):
            if before.get(key) != after.get(key):
                (declared if key in differs else problems).append(
                    f"{key}: legacy {before.get(key)!r} != rewrite {after.get(key)!r}")
    if legacy.get("outputs") != current.get("outputs"):
        problems.append(f"outputs: legacy {legacy.get('outputs')!r} != rewrite {current.get('outputs')!r}")
    unused = [key for key in differs if not any(d.startswith(key + ":") for d in declared)]
    problems += [f"{key} declared as differing but identical" for key in unused]
    return problems, declared


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only cases whose id contains this")
    parser.add_argument("--python", default="python3.11", help="interpreter for new environments (wheels must exist for it)")
    args = parser.parse_args(argv)
    import jax

    selected = [c for c in cases() if args.k in c.id]
    failed = 0
    for case in selected:
        start = time.perf_counter()
        declared: list[str] = []
        try:
            current = current_description(case, args.python)
            if case.legacy_lowers:
                problems, declared = compare(legacy_description(case, args.python), current, case.differs)
            elif "backend_config" not in case.expect:
                problems = ["a case whose legacy form never lowered must declare the backend_config"]
            else:
                problems = []
            problems += [f"declared {p}" for p in mismatches(case.expect, current)]
        except Exception as exc:  # noqa: BLE001 - report the case and go on
            problems = [f"error: {exc}"]
        status = "DIFFERS" if problems else "differs as declared" if declared else "identical"
        failed += bool(problems)
        source = f"jax {case.jax}" if case.legacy_lowers else "declared bytes"
        print(f"{case.id}: {source} -> {case.rewrite_jax or jax.__version__}: {status} ({time.perf_counter() - start:.1f}s)")
        for problem in problems:
            print(f"    {problem}")
        for difference in declared:
            print(f"    (declared) {difference}")
    print(f"{len(selected) - failed} of {len(selected)} case(s) identical or differing only as declared")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
