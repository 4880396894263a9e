# ccmigrate-args: --select stablehlo-custom-call-op,aval-to-ir-type
"""An op built with a Python int api_version, which no jax release converted:
make test-compat holds the rewrite to the api_version and bytes declared in compat.toml."""
import numpy as np

from jax.extend.core import Primitive
from jax.interpreters import mlir
from jax.interpreters.mlir import hlo

norm_p = Primitive("ccm_norm")
norm_p.def_abstract_eval(lambda x: x)


def _norm_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.avals_out[0])
    op = hlo.CustomCallOp([out_type], [x], call_target_name="ccm_norm_f32",
                          backend_config="eps=1e-6", api_version=2)
    return op.results


mlir.register_lowering(norm_p, _norm_lowering, platform="cpu")


def norm(x):
    return norm_p.bind(x)


def compat_entry():
    return norm, (np.ones((2, 3), np.float32),)
