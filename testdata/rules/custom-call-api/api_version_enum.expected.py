from jax.interpreters import mlir
import jax


def _rasterize_lowering(ctx, vertices):
    return jax.ffi.ffi_lowering(
        "rasterize_triangles",
        result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])],
        operand_layouts=[(1, 0)], result_layouts=[(1, 0)],
        api_version=2,
    )(ctx, vertices)


def _typed_lowering(ctx, x):
    return jax.ffi.ffi_lowering(
        "typed_kernel",
        result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])],
        operand_layouts=[(0,)], result_layouts=[(0,)],
        api_version=4,
    )(ctx, x)
