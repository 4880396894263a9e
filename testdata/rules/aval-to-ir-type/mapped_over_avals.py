"""Triton-bridge style: the function mapped over the output avals, not called."""
from jax.interpreters import mlir


def _lowering(ctx, *in_nodes):
    result_types = [*map(mlir.aval_to_ir_type, ctx.avals_out)]
    arg_types = list(map(mlir.aval_to_ir_types, ctx.avals_in))
    return result_types, arg_types
