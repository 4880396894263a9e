"""Older jax: ir_constant(v, canonicalize_types=...)."""
import jax.interpreters.mlir as mlir


def lowering(ctx, x, *, n_points, scale):
    return [
        mlir.ir_constant(n_points, canonicalize_types=False),
        mlir.ir_constant(scale, canonicalize_types=True),
        mlir.ir_constants(n_points, canonicalize_types=ctx.module_context.x64),
    ]
