# ccmigrate-args: --select custom-call-api,aval-to-ir-type
"""A side-effecting kernel bound through jaxlib.hlo_helpers.custom_call: bytes target
name, api_version 1, no layouts, the op's .result used; lowers on jax 0.7.2, the last
release with jaxlib.hlo_helpers (make test-compat)."""
import numpy as np

from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax

axpy_p = Primitive("ccm_axpy")
axpy_p.def_abstract_eval(lambda x, y: y)


def _axpy_lowering(ctx, x, y):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    op = jax.ffi.build_ffi_lowering_function("ccm_axpy_f32", result_types=[out_type],
                     api_version=1, has_side_effect=True, skip_ffi_layout_processing=True)(ctx, x, y)
    return [op.result]


mlir.register_lowering(axpy_p, _axpy_lowering, platform="cpu")


def axpy(x, y):
    return axpy_p.bind(x, y)


def compat_entry():
    return axpy, (np.ones(8, np.float32), np.zeros(8, np.float32))
