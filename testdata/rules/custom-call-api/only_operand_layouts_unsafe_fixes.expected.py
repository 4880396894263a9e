# ccmigrate-args: --unsafe-fixes
"""Only operand layouts were constrained: ffi_lowering would add row-major result
layouts, so the rewrite needs review (unsafe) and is not applied by default."""
from jax.interpreters import mlir
import jax


def _transpose_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return jax.ffi.ffi_lowering("col_major_copy", api_version=2, result_types=[out_type],
                            operand_layouts=[(0, 1)])(ctx, x)
