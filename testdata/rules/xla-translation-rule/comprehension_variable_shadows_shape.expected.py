"""exoplanet-core's Kepler solver: the generator checking the operands' dtypes names its
variable `shape`, which the rule later binds to an XLA shape; the two are different
names (the comprehension has its own scope)."""
import numpy as np
import jax.numpy as jnp
from jax.interpreters import mlir
import jax
from jax import core


def kepler_translation_rule(ctx, M, ecc):
    shapes = (ctx.avals_in[0], ctx.avals_in[1])
    if any(shape.dtype != np.float64 for shape in shapes):
        raise ValueError("float64 required")
    dims = shapes[0].shape
    N = np.prod(dims).astype(np.int32)
    order = tuple(range(len(dims) - 1, -1, -1))
    shape = order
    return jax.ffi.ffi_lowering(
        "solve_kepler",
        api_version=1,
        operand_layouts=((), shape, shape),
        result_layouts=(shape, shape),
    )(ctx.replace(avals_in=[core.ShapedArray(np.shape(N), np.asarray(N).dtype), ctx.avals_in[0], ctx.avals_in[1]]), mlir.ir_constant(np.asarray(N)), M, ecc)


def register(prim):
    mlir.register_lowering(prim, kepler_translation_rule, platform="cpu")
