"""token_type imported from either of jax's modules by a version test in this module."""
import jax

if tuple(int(p) for p in jax.__version__.split(".")[:3]) >= (0, 4, 4):
    from jax._src.interpreters.mlir import token_type
else:
    from jax.interpreters.mlir import token_type


def result_types(x_type):
    return [x_type, token_type()]
