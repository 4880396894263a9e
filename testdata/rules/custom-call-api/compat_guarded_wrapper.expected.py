# ccmigrate-args: --select custom-call-api
"""TransformerEngine's wrapper: `hasattr(mlir, "custom_call")` picks mlir.custom_call where
jax has it (0.7.2 takes that branch, make test-compat), else jaxlib.hlo_helpers; jax 0.8
removed both, so the installed jax runs the `else`, which the rewrite turns into the FFI
builder: the same custom call as the branch 0.7.2 ran."""
import numpy as np
from jaxlib.mlir import ir

from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax

gelu_p = Primitive("ccm_guarded_gelu")
gelu_p.def_abstract_eval(lambda x: x)


def custom_caller(ctx, name, operands, out_types, layouts, opaque, has_side_effect, **kwargs):
    if hasattr(mlir, "custom_call"):
        out = mlir.custom_call(name, result_types=out_types, operands=operands, operand_layouts=layouts,
                               result_layouts=layouts, backend_config=opaque, has_side_effect=has_side_effect,
                               **kwargs).results
    else:
        out = jax.ffi.build_ffi_lowering_function(name, api_version=2, result_types=out_types, operand_layouts=layouts,
                          result_layouts=layouts, backend_config=opaque, has_side_effect=has_side_effect,
                          result_shapes=None, **kwargs)(ctx.replace(avals_in=[None] * len(layouts), avals_out=[None] * len(layouts)), *operands).results
    return out


def _gelu_lowering(ctx, x):
    shape = ir.RankedTensorType(x.type).shape
    layout = tuple(range(len(shape) - 1, -1, -1))
    out = custom_caller(ctx, "ccm_gelu_f32", [x], [x.type], [layout], b"\x07gelu", False, operand_output_aliases={0: 0})
    return out


mlir.register_lowering(gelu_p, _gelu_lowering, platform="cpu")


def compat_entry():
    return gelu_p.bind, (np.ones((2, 3), np.float32),)
