"""Config preservation against git HEAD, for sites whose original builders jax removed.

HEAD holds legacy code (``jax.interpreters.mlir.custom_call``, ``jaxlib.hlo_helpers``);
the work tree holds a hand migration to ``jax.ffi.ffi_lowering`` in which one config
was copied faithfully and the other was not. ``verify`` must lower the original too
(putting the removed builders back while it runs), and catch the changed bytes.
"""

from __future__ import annotations

import json
import subprocess
import textwrap

from codemods.verify.runner import head_versions
from tests.helpers import ccmigrate

LEGACY = '''
from jax.extend.core import Primitive
from jax.interpreters import mlir
from jaxlib.hlo_helpers import custom_call as hlo_custom_call

a_p = Primitive("git_case_a")
a_p.def_abstract_eval(lambda x: x)
b_p = Primitive("git_case_b")
b_p.def_abstract_eval(lambda x: x)


def _a(ctx, x):
    t = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return mlir.custom_call("a_target", result_types=[t], operands=[x], backend_config={"b": [1, 2], "a": 1.5}).results


def _b(ctx, x):
    t = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return hlo_custom_call("b_target", result_types=[t], operands=[x], backend_config=b"raw\\x00").results


mlir.register_lowering(a_p, _a)
mlir.register_lowering(b_p, _b)


def both(x):
    return b_p.bind(a_p.bind(x))
'''

MIGRATED = '''
import jax
from jax.extend.core import Primitive
from jax.interpreters import mlir

a_p = Primitive("git_case_a")
a_p.def_abstract_eval(lambda x: x)
b_p = Primitive("git_case_b")
b_p.def_abstract_eval(lambda x: x)


def _a(ctx, x):
    return jax.ffi.ffi_lowering("a_target", api_version=2, backend_config='{"a":1.5,"b":[1,2]}')(ctx, x)


def _b(ctx, x):
    return jax.ffi.ffi_lowering("b_target", api_version=2, backend_config=b"raw\\x01")(ctx, x)


mlir.register_lowering(a_p, _a)
mlir.register_lowering(b_p, _b)


def both(x):
    return b_p.bind(a_p.bind(x))
'''


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_configs_are_compared_with_git_head(tmp_path):
    repo = tmp_path / "repo"
    (repo / "gitcase").mkdir(parents=True)
    (repo / "gitcase" / "__init__.py").write_text("")
    module = repo / "gitcase" / "ops.py"
    module.write_text(textwrap.dedent(LEGACY))
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "legacy")
    module.write_text(textwrap.dedent(MIGRATED))
    assert head_versions([str(module)]) == {str(module): textwrap.dedent(LEGACY).encode()}

    report = tmp_path / "report.json"
    proc = ccmigrate("verify", str(repo), "--report", str(report))
    rows = {r["target"]: r for r in json.loads(report.read_text())["sites"]}
    assert rows["a_target"]["status"] == rows["b_target"]["status"] == "verified"
    assert rows["a_target"]["config_preserved"] is True  # the same JSON value, keys in another order
    assert rows["b_target"]["config_preserved"] is False  # b"raw\x00" became b"raw\x01"
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "CONFIG CHANGED" in proc.stdout
