# ccmigrate-args: --target-jax 0.9.0
"""jax 0.9 has no static isinstance but hands out operands as plain ir.Value: the value
tests are reported, the type tests rewritten."""
from jax.interpreters.mlir import ir


def produced_here(value):
    return ir.OpResult.isinstance(value) and isinstance(value.type, ir.RankedTensorType)
