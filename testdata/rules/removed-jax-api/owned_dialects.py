"""The removed mlir.hlo dialect alias is stablehlo-custom-call-op's to move: not reported here."""
from jax.interpreters.mlir import hlo


def lower(ctx, x):
    return hlo.AddOp(x, x).results
