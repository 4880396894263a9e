# ccmigrate-args: --select custom-call-api,aval-to-ir-type
"""A kernel bound through the public mlir.custom_call with a bytes descriptor and
explicit layouts, the call's .results returned; lowers on jax 0.7.2, the last release
with mlir.custom_call (make test-compat)."""
import numpy as np

from jax.extend.core import Primitive
from jax.interpreters import mlir

DESCRIPTOR = np.array([4, 1], dtype=np.int32).tobytes()

scale_p = Primitive("ccm_scale")
scale_p.def_abstract_eval(lambda x: x)


def _scale_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.avals_out[0])
    return mlir.custom_call("ccm_scale_f32", result_types=[out_type], operands=[x],
                            backend_config=DESCRIPTOR, operand_layouts=[(0, 1)],
                            result_layouts=[(1, 0)]).results


mlir.register_lowering(scale_p, _scale_lowering, platform="cpu")


def scale(x):
    return scale_p.bind(x)


def compat_entry():
    return scale, (np.ones((2, 3), np.float32),)
