"""token_type through jax's own modules, public and private, under an alias too: every
use written for the one-element list it returned up to jax 0.4.30."""
from jax.interpreters import mlir
from jax._src.interpreters.mlir import token_type as tok
from jax.interpreters.mlir import ir

from .types import build_types


def result_types_and_layouts(ctx, x):
    x_type = ir.RankedTensorType(x.type)
    types = [x_type] + mlir.token_type()
    layouts = [tuple(range(x_type.rank - 1, -1, -1))] + [() for _ in mlir.token_type()]
    return types, layouts


def lowering_with_tuple(ctx, x, token):
    x_type = ir.RankedTensorType(x.type)
    return mlir.custom_call(
        "with_token",
        result_types=(x_type, *tok()),
        operands=[x, token],
        has_side_effect=True,
    ).results


def token_layouts(n):
    token_types = tok()
    return [() for _ in range(n)] * len(token_types), token_types[0]


def count_results(avals):
    return len(avals) + len(tok())


def spread(first, *rest):
    return [first, *rest]


def unpacked_into_a_call(x_type):
    return spread(x_type, *mlir.token_type())


def unpacked_into_a_call_not_read_here(x_type):
    # The callee is defined elsewhere: whatever it expects, `*[...]` passes what `*` did.
    return build_types(x_type, *mlir.token_type())
