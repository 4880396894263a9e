"""A module that moved to jax.ffi but kept the builder imports: the imports alone now fail."""
import jax
from jax.interpreters import mlir
from jax.interpreters.mlir import custom_call, ir
from jaxlib.hlo_helpers import custom_call as hlo_custom_call


def lowering(ctx, x):
    out_type = ir.RankedTensorType(x.type)
    return jax.ffi.ffi_lowering("f", result_types=[out_type])(ctx, x)


mlir.register_lowering(jax.extend.core.Primitive("f"), lowering)
