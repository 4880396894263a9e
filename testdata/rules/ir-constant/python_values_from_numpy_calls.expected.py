"""Constants from NumPy values turned back into Python ones (.tolist(), .item(), a random
draw without a size) are wrapped; a NumPy value cast with .astype stays as it is."""
import numpy as np
from jax.interpreters import mlir


def rule_d(ctx, x, n):
    v = np.asarray(x).tolist()
    a = mlir.ir_constant(np.asarray(v))
    b = mlir.ir_constant(np.asarray(np.int32(n).item()))
    c = mlir.ir_constant(np.asarray(np.random.randint(5)))
    d = mlir.ir_constant(np.int32(n))
    return a, b, c, d
    e = mlir.ir_constant(np.prod(x.shape).astype(np.int32))
    return e
