"""A UTF-8 file with a byte-order mark (über): rewritten, the mark kept."""
from jax.interpreters import mlir


def _scale_lowering(ctx, x):
    return mlir.custom_call(
        "scale_f32",
        result_types=[mlir.aval_to_ir_type(ctx.avals_out[0])],
        operands=[x],
        backend_config={"label": "über"},
        api_version=2,
    ).results
