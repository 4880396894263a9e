# ccmigrate-args: --select custom-call-api
"""A jaxlib-style helper without the lowering context builds the call through
jaxlib.hlo_helpers.custom_call, with a leading constant operand and explicit layouts;
lowers on jax 0.7.2, the last release with jaxlib.hlo_helpers (make test-compat)."""
import numpy as np
from jaxlib.hlo_helpers import custom_call
from jaxlib.mlir import ir

from jax.extend.core import Primitive
from jax.interpreters import mlir

add_p = Primitive("ccm_helper_add")
add_p.def_abstract_eval(lambda a, b: a)


def _add_hlo(dtype, a, b):
    shape = ir.RankedTensorType(a.type).shape
    layout = tuple(range(len(shape) - 1, -1, -1))
    target = "ccm_add_f32" if dtype == np.float32 else "ccm_add_f64"
    return custom_call(
        target,
        result_types=[a.type],
        operands=[mlir.ir_constant(np.int64(shape[0])), a, b],
        operand_layouts=[(), layout, layout],
        result_layouts=[layout],
        backend_config=b"\x02\x00",
    ).results


def _add_lowering(ctx, a, b):
    return _add_hlo(np.float32, a, b)


mlir.register_lowering(add_p, _add_lowering, platform="cpu")


def compat_entry():
    return add_p.bind, (np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32))
