"""`make demo`: migrate the bundled example package in a scratch copy and show that it lowers.

Steps, each printed: the diff `ccmigrate diff` proposes, `ccmigrate apply`, then the
verification pass over the rewritten package.
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
        if step("what would change (exit 1: changes pending)", "diff", package) != 1:
            return 1
        if step("rewrite the files", "apply", package) != 0:
            return 1
        if step("nothing left to change (exit 0)", "diff", package) != 0:
            return 1
        return step("lower every entry point with jax", "verify", package)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
