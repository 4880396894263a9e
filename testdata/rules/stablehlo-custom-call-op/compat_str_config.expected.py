# ccmigrate-args: --select stablehlo-custom-call-op,aval-to-ir-type
"""A lowering rule building the op itself with a Python str backend_config and the hlo
module taken from jax.interpreters.mlir; lowers on jax 0.4.30, the last release that
converted the str (make test-compat)."""
import numpy as np

from jax.extend.core import Primitive
from jax.interpreters import mlir
from jax.extend.mlir.dialects import stablehlo as hlo

norm_p = Primitive("ccm_norm")
norm_p.def_abstract_eval(lambda x: x)


def _norm_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    op = hlo.CustomCallOp([out_type], [x], call_target_name="ccm_norm_f32",
                          backend_config=mlir.ir.StringAttr.get("eps=1e-5"), api_version=mlir.i32_attr(2))
    return op.results


mlir.register_lowering(norm_p, _norm_lowering, platform="cpu")


def norm(x):
    return norm_p.bind(x)


def compat_entry():
    return norm, (np.ones((2, 3), np.float32),)
