"""Benchmark: verify N generated small modules; report seconds per module.

Each generated module defines a primitive, a lowering rule that builds one custom call
(with a JSON backend_config) and a public function binding it, so every module goes
through the whole pipeline: static scan, import in a worker, automatic entry points,
lowering, site mapping. The figure of merit is wall time divided by the module count
("amortised": the workers' one-time jax import is included). Target: <= 0.1 s/module
on 2 cores.

    python benchmarks/verify_bench.py [--modules 100] [--workers 2] [--platforms cpu] [--json]

Run it on demand; it is not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from codemods.verify.runner import VerifyOptions, verify  # noqa: E402

MODULE = '''"""Generated kernel module {index}."""
import json

from jax._src.interpreters import mlir
from jax.extend.core import Primitive
from jax.interpreters import mlir as mlir_public

op{index}_p = Primitive("bench_op{index}")
op{index}_p.def_abstract_eval(lambda x: x)


def _lowering(ctx, x):
    out = mlir_public.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return mlir.custom_call("bench_target{index}", result_types=[out], operands=[x],
                            backend_config=json.dumps({{"index": {index}, "alpha": 2.0}}), api_version=2).results


mlir_public.register_lowering(op{index}_p, _lowering)


def op{index}(x):
    return op{index}_p.bind(x)
'''


def generate(directory: str, count: int) -> str:
    package = os.path.join(directory, "benchpkg")
    os.makedirs(package)
    with open(os.path.join(package, "__init__.py"), "w") as fh:
        fh.write("")
    for index in range(count):
        with open(os.path.join(package, f"kernel_{index:03d}.py"), "w") as fh:
            fh.write(MODULE.format(index=index))
    return package


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--platforms", default=None, help="comma-separated (default: jax's default backend)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ccmigrate-verify-bench-") as tmp:
        package = generate(tmp, args.modules)
        options = VerifyOptions(
            platforms=args.platforms.split(",") if args.platforms else None,
            workers=args.workers,
            use_git=False,
        )
        start = time.perf_counter()
        report = verify([package], options)
        elapsed = time.perf_counter() - start
    counts = report.counts()
    result = {
        "modules": args.modules,
        "workers": args.workers,
        "platforms": report.platforms,
        "wall_s": round(elapsed, 3),
        "s_per_module": round(elapsed / args.modules, 4),
        "verified": counts["verified"],
        "failed": counts["failed"],
        "unreached": counts["unreached"],
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['verified']} site/platform pair(s) of {args.modules} module(s) verified in {result['wall_s']} s on {args.workers} worker(s) "
            f"({','.join(result['platforms'])}): {result['s_per_module']} s/module amortised (target <= 0.1)"
        )
    return 0 if counts["verified"] == args.modules * len(report.platforms) and not counts["failed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
