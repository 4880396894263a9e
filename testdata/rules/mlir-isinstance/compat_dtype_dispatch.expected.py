"""A lowering rule that picks its kernel by the operand's element type through the
bindings' static isinstance; lowers on jax 0.8.0, the last release whose bindings had it
(make test-compat)."""
import numpy as np

import jax
from jax.extend.core import Primitive
from jax.interpreters import mlir
from jax.interpreters.mlir import ir

scale_p = Primitive("ccm_scale")
scale_p.def_abstract_eval(lambda x: x)


def _kernel_for(element):
    if isinstance(element, ir.F32Type):
        return "ccm_scale_f32"
    if isinstance(element, ir.F64Type):
        return "ccm_scale_f64"
    if isinstance(element, ir.IntegerType):
        return "ccm_scale_i32"
    raise NotImplementedError(f"no kernel for {element}")


def _scale_lowering(ctx, x):
    shaped = ir.ShapedType(x.type)
    if not isinstance(shaped.maybe_downcast(), ir.RankedTensorType):
        raise ValueError("ranked operands only")
    target = _kernel_for(ir.RankedTensorType(x.type).element_type)
    return jax.ffi.ffi_lowering(target)(ctx, x)


mlir.register_lowering(scale_p, _scale_lowering, platform="cpu")


def scale(x):
    return scale_p.bind(x)


def compat_entry():
    return scale, (np.ones((4,), np.int32),)
