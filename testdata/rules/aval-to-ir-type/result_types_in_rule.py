"""Result types built in a lowering rule, in a comprehension and a closure."""
from jax.interpreters import mlir


def _lowering(ctx, x, y):
    out_type = mlir.aval_to_ir_type(ctx.avals_out[0])
    all_types = [mlir.aval_to_ir_type(aval) for aval in ctx.avals_out]

    def flat_types(aval):
        return mlir.aval_to_ir_types(aval)

    return out_type, all_types, flat_types
