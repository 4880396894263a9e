"""`make demo`: migrate the bundled example package in a scratch copy and show that it lowers.

Steps, each printed: `verify` on the legacy package (sites fail with jax's errors), the
diff `diff` proposes, `apply --verify` (rewrite, lower, compare configs with the old
ones), and a last `diff` that finds nothing left to do.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def step(title: str, *args: str) -> int:
    print(f"\n$ ccmigrate {' '.join(args)}    # {title}", flush=True)
    return subprocess.call([sys.executable, "-m", "codemods", *args])


def main() -> int:
    scratch = tempfile.mkdtemp(prefix="ccmigrate-demo-")
    package = os.path.join(scratch, "fastkernels")
    shutil.copytree(HERE, package, ignore=shutil.ignore_patterns("run_demo.py", "__pycache__"))
    print(f"Example package copied to {package}")
    try:
        if step("before: which sites fail to lower, with jax's errors (exit 1)", "verify", package) != 1:
            return 1
        if step("what would change (exit 1: changes pending)", "diff", package) != 1:
            return 1
        if step("rewrite, then lower the rewritten modules and compare configs", "apply", "--verify", package) != 0:
            return 1
        return 0 if step("nothing left to change (exit 0)", "diff", package) == 0 else 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
