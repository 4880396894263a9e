"""Older jax: ir_constant(v, canonicalize_types=...)."""
import jax.interpreters.mlir as mlir
import numpy


def _ccmigrate_canonical_constant(value):
    """The constant ir_constant(value, canonicalize_types=True) built (added by ccmigrate)."""
    import jax
    import numpy as np

    value = np.asarray(value)
    return value.astype(jax.dtypes.canonicalize_dtype(value.dtype))


def lowering(ctx, x, *, n_points, scale):
    return [
        mlir.ir_constant(numpy.asarray(n_points)),
        mlir.ir_constant(_ccmigrate_canonical_constant(scale)),
        mlir.ir_constants(n_points, canonicalize_types=ctx.module_context.x64),
    ]
