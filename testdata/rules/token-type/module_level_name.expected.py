# ccmigrate-args: --unsafe-fixes
"""A module-level name bound to the list: other modules may import it, so rewriting it is
an unsafe fix (applied here with --unsafe-fixes)."""
from jax.interpreters import mlir


TOKEN_TYPES = [mlir.token_type()]


def lowering(ctx, x):
    return mlir.custom_call("with_token", result_types=[x.type, *TOKEN_TYPES], operands=[x]).results


def token_layouts():
    return [() for _ in TOKEN_TYPES]
