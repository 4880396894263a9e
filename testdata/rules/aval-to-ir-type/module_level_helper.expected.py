# ccmigrate-args: --annotate
"""No lowering context in reach: reported and annotated, not guessed."""
from jax.interpreters import mlir


def ir_type_of(aval):
    # TODO(ccmigrate): [aval-to-ir-type] mlir.aval_to_ir_type(aval) takes the module context first since jax 0.10.1 and no lowering rule context is in reach: pass `ctx.module_context` (from the lowering rule's ctx) as the first argument
    return mlir.aval_to_ir_type(aval)
