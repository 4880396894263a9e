# ccmigrate-args: --select custom-call-api,xla-client-import
"""api_version spelt through xla_client's enum, xla_client used nowhere else: once the
enum becomes an integer the import goes in the same run (it fails on jax 0.9.0), so a
second run has nothing left to do."""
from jax.interpreters import mlir
import jax


def _rasterize_lowering(ctx, vertices):
    return jax.ffi.ffi_lowering(
        "rasterize_triangles",
        result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])],
        operand_layouts=[(1, 0)], result_layouts=[(1, 0)],
        api_version=2,
    )(ctx, vertices)
