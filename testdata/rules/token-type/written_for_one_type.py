"""Code already written for jax >= 0.4.31, where token_type() is one type: left alone."""
from jax.interpreters import mlir
from jax.interpreters.mlir import ir


def lowering(ctx, x, token):
    x_type = ir.RankedTensorType(x.type)
    token_ty = mlir.token_type()
    return mlir.custom_call(
        "with_token",
        result_types=[x_type, mlir.token_type()],
        operands=[x, token],
        operand_layouts=[(0,), ()],
        result_layouts=[(0,), ()],
        has_side_effect=True,
    ).results, (x_type, token_ty)


def is_token(value):
    return value.type == mlir.token_type()


def layouts(types):
    token = mlir.token_type()
    return [() if t == token else (0,) for t in types], [token, *types]
