from jax.interpreters import mlir
from jax.lib import xla_client


def _rasterize_lowering(ctx, vertices):
    return mlir.custom_call(
        "rasterize_triangles", operands=[vertices],
        result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])],
        operand_layouts=[(1, 0)], result_layouts=[(1, 0)],
        api_version=xla_client.ops.CustomCallApiVersion.API_VERSION_STATUS_RETURNING,
    ).results


def _typed_lowering(ctx, x):
    return mlir.custom_call(
        "typed_kernel", operands=[x],
        result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])],
        operand_layouts=[(0,)], result_layouts=[(0,)],
        api_version=xla_client.ops.CustomCallApiVersion.API_VERSION_TYPED_FFI,
    ).results
