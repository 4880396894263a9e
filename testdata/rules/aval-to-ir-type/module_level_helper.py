# ccmigrate-args: --annotate
"""No lowering context in reach: reported and annotated, not guessed."""
from jax.interpreters import mlir


def ir_type_of(aval):
    return mlir.aval_to_ir_type(aval)
