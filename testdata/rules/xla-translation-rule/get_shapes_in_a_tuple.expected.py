"""A light-curve kernel's rule (exoplanet-core style): the operands' builder shapes held
in a tuple, checked element by element and read by index. Each becomes its aval, and
their .element_type() / .dimensions() the aval's dtype / shape."""
import numpy as np
from jax.interpreters import mlir
import jax


def _quad_solution_vector_translation(ctx, b, r):
    shapes = (ctx.avals_in[0], ctx.avals_in[1])
    if any(s.dtype != np.float64 for s in shapes):
        raise ValueError("float64 precision is required")
    dims = tuple(shapes[0].shape)
    layout = tuple(range(len(dims) - 1, -1, -1))
    shape = layout
    return jax.ffi.ffi_lowering(
        "quad_solution_vector",
        api_version=1,
        operand_layouts=(shape, shape),
        result_layouts=[shape],
    )(ctx, b, r)


def register(prim):
    mlir.register_lowering(prim, _quad_solution_vector_translation, platform="cpu")
