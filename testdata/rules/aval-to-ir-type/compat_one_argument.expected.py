"""Result types built with the one-argument mlir.aval_to_ir_type; lowers on jax 0.10.0,
the last release that accepted it (make test-compat)."""
import numpy as np

import jax
from jax.extend.core import Primitive
from jax.interpreters import mlir

relu_p = Primitive("ccm_relu")
relu_p.def_abstract_eval(lambda x: x)


def _relu_lowering(ctx, x):
    result_types = [mlir.aval_to_ir_type(ctx.module_context, aval) for aval in ctx.avals_out]
    return jax.ffi.ffi_lowering("ccm_relu_f32", result_types=result_types)(ctx, x)


mlir.register_lowering(relu_p, _relu_lowering, platform="cpu")


def relu(x):
    return relu_p.bind(x)


def compat_entry():
    return relu, (np.ones((2, 3), np.float32),)
