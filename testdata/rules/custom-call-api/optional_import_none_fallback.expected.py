"""An optional import whose except clause only sets the name to None: that is no other
meaning of the name, so the call is the removed builder and is migrated like any other
(the guard is around the import, not the call)."""
from jax.interpreters import mlir
import jax

try:
    pass
except ImportError:
    hlo_helpers = None


def _lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return jax.ffi.ffi_lowering(
        "cpu_scale", api_version=2, result_types=[out_type],
        operand_layouts=[(0,)], result_layouts=[(0,)],
    )(ctx, x)
