"""A sparse contraction registered for the reference interpreter as well as the GPU: jax no
longer knows that platform and refuses the registration when the module is imported."""
from jax.interpreters import mlir


def _sparse_dot_lowering(ctx, lhs, rhs):
    return mlir.lower_fun(lambda a, b: a @ b, multiple_results=False)(ctx, lhs, rhs)


def register(prim):
    mlir.register_lowering(prim, _sparse_dot_lowering, platform="gpu")
    mlir.register_lowering(prim, _sparse_dot_lowering, platform="interpreter")
    rules = [mlir.register_lowering(prim, _sparse_dot_lowering, platform="interpreter")]
    return rules
