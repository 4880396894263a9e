"""The private module under an alias, and a context annotated rather than named ctx."""
from jax._src.interpreters import mlir as jmlir


def lower_solve(lowering_context: jmlir.LoweringRuleContext, a, b):
    return [jmlir.aval_to_ir_type(lowering_context.module_context, aval) for aval in lowering_context.avals_out]
