"""The worker on its own, in a fresh interpreter: one MLIR context serves several
lowerings and is renewed after CONTEXT_REUSE of them, and every module still lowers."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from codemods.verify import worker as worker_module
from tests.helpers import ROOT

MODULE = '''
from jax._src.interpreters import mlir
from jax.extend.core import Primitive

op_p = Primitive("ctx_op{n}")
op_p.def_abstract_eval(lambda x: x)


def _lowering(ctx, x):
    out = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return mlir.custom_call("ctx_target{n}", result_types=[out], operands=[x], backend_config="{n}").results


mlir.register_lowering(op_p, _lowering)


def op(x):
    return op_p.bind(x)
'''

SCRIPT = '''
import json, os, sys
from codemods.verify import worker as worker_module

worker_module.CONTEXT_REUSE = 3
worker = worker_module.Worker()
made = []  # every context handed out, kept alive so that identity means something
real = worker.mlir_private.make_ir_context


def make_ir_context():
    made.append(real())
    return made[-1]


worker.mlir_private.make_ir_context = make_ir_context
root = sys.argv[1]
paths = [os.path.join(root, f"ctx_mod{n}.py") for n in range(4)]
worker.user_files = {os.path.realpath(p) for p in paths}
results = []
for n, path in enumerate(paths):
    job = {"module": f"ctx_mod{n}", "path": path, "sys_path": [root], "platforms": ["cpu", "cuda"]}
    result = worker.run(job, lambda text: None)
    results.append([[p["platform"], p["error"], [e["target"] for e in p["emissions"]]] for p in result["probes"]])
order = []
for context in made:
    order.append(next(i for i, c in enumerate(made) if c is context))
print(json.dumps({"results": results, "contexts": order}))
'''


def _bare_env() -> dict:
    """A near-empty environment that still finds this package and jax (where jax is on
    PYTHONPATH, as on some accelerator hosts) and keeps the suite's backend."""
    env = {"PYTHONPATH": os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p), "PATH": "/usr/bin:/bin"}
    if "JAX_PLATFORMS" in os.environ:
        env["JAX_PLATFORMS"] = os.environ["JAX_PLATFORMS"]
    return env


def test_lowerings_share_a_context_and_renew_it(tmp_path):
    for n in range(4):
        (tmp_path / f"ctx_mod{n}.py").write_text(MODULE.format(n=n))
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env=_bare_env())
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # Each module: a public function lowered for two platforms, its custom call built each time.
    assert out["results"] == [[["cpu", None, [f"ctx_target{n}"]], ["cuda", None, [f"ctx_target{n}"]]] for n in range(4)]
    # Eight lowerings, three to a context (each listed by where it was first handed out);
    # a jax that shares contexts itself (0.12: ten lowerings to one) is left to do so.
    from jax._src.interpreters import mlir

    assert out["contexts"] == ([0] * 8 if worker_module.jax_reuses_contexts(mlir) else [0, 0, 0, 3, 3, 3, 6, 6])


SHADOW_SCRIPT = '''
import json, os, sys
from codemods.verify import worker as worker_module

worker = worker_module.Worker()
shadow, plain = sys.argv[1], sys.argv[2]
jobs = [
    {"module": "jax", "path": os.path.join(shadow, "jax.py"), "sys_path": [shadow], "platforms": ["cpu"]},
    {"module": "ops", "path": os.path.join(plain, "ops.py"), "sys_path": [plain], "platforms": ["cpu"]},
]
worker.user_files = {os.path.realpath(j["path"]) for j in jobs}
path_before = list(sys.path)
out = []
for job in jobs:
    result = worker.run(job, lambda text: None)
    out.append({"import_error": result["import_error"], "notes": result["notes"],
                "probes": [[p["platform"], p["error"], [e["target"] for e in p["emissions"]]] for p in result["probes"]]})
import jax
print(json.dumps({"jobs": out, "real_jax": jax.__file__ != os.path.join(shadow, "jax.py"),
                  "path_restored": sys.path == path_before}))
'''


def test_a_file_named_like_an_installed_module_does_not_replace_it(tmp_path):
    """A repository's own ``jax.py`` (an interop module, say) is verified without
    evicting the worker's jax, so the modules after it still import the real one."""
    shadow, plain = tmp_path / "interop", tmp_path / "plain"
    shadow.mkdir()
    plain.mkdir()
    (shadow / "jax.py").write_text(MODULE.format(n=0))
    (plain / "ops.py").write_text("import jax\n" + MODULE.format(n=1))
    proc = subprocess.run([sys.executable, "-c", SHADOW_SCRIPT, str(shadow), str(plain)], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env=_bare_env())
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    first, second = out["jobs"]
    assert first["import_error"] is None
    assert first["probes"] == [["cpu", None, ["ctx_target0"]]]
    assert any("installed `jax`" in note for note in first["notes"]), first["notes"]
    assert second == {"import_error": None, "notes": [], "probes": [["cpu", None, ["ctx_target1"]]]}
    assert out["real_jax"] and out["path_restored"]
