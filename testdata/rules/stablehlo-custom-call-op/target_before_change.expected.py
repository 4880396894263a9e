# ccmigrate-args: --target-jax 0.4.30
# 0.4.30 still converts the str backend_config (kept); no release converted the int api_version.
from jax.interpreters.mlir import hlo
from jax.interpreters import mlir


def _lowering(ctx, x, *, out_type):
    return hlo.CustomCallOp([out_type], [x], call_target_name="t", backend_config="cfg", api_version=mlir.i32_attr(2)).results


def compat_entry():
    import numpy as np
    from jax.extend.core import Primitive
    from jax.interpreters import mlir as lowering

    prim = Primitive("norm")
    prim.def_abstract_eval(lambda x: x)
    lowering.register_lowering(
        prim, lambda ctx, x: _lowering(ctx, x, out_type=lowering.aval_to_ir_type(ctx.avals_out[0])), platform="cpu")
    return prim.bind, (np.ones(3, np.float32),)
