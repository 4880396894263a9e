"""A test written for both bindings: the branch for the old ones is left to them."""
from jax.interpreters.mlir import ir

if hasattr(ir.RankedTensorType, "isinstance"):
    def is_tensor(t):
        return ir.RankedTensorType.isinstance(t)
else:
    def is_tensor(t):
        return isinstance(t, ir.RankedTensorType)
