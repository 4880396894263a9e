"""A site in a file with a byte that is not UTF-8: reported, untouched."""
from jax.interpreters import mlir


def _scale_lowering(ctx, x):
    return mlir.custom_call(
        "scale_f32",
        result_types=[mlir.aval_to_ir_type(ctx.avals_out[0])],
        operands=[x],
        backend_config={"mode": "fäst", "alpha": 2.0},
        api_version=2,
    ).results
