# ccmigrate-args: --annotate
"""Uses of token_type whose intent the code does not show: reported, with what changed."""
from jax.interpreters import mlir


def token_types():
    # TODO(ccmigrate): [token-type] mlir.token_type() returns one ir.Type since jax 0.4.31 (a one-element list up to 0.4.30): the value is returned; check that it expects one type, or write `[token_type()]` where it expects the list
    return mlir.token_type()


def handed_on(register):
    # TODO(ccmigrate): [token-type] mlir.token_type() returns one ir.Type since jax 0.4.31 (a one-element list up to 0.4.30): the value is passed to another call; check that it expects one type, or write `[token_type()]` where it expects the list
    register(mlir.token_type())


def both(types):
    # TODO(ccmigrate): [token-type] mlir.token_type() returns one ir.Type since jax 0.4.31 (a one-element list up to 0.4.30): `token` is used both as a list and as one type; check that it expects one type, or write `[token_type()]` where it expects the list
    token = mlir.token_type()
    return [*token, *types], token == types[0]


def kept(state):
    # TODO(ccmigrate): [token-type] mlir.token_type() returns one ir.Type since jax 0.4.31 (a one-element list up to 0.4.30): the value is stored in `state.token_types`, whose reads this rule does not follow; check that it expects one type, or write `[token_type()]` where it expects the list
    state.token_types = mlir.token_type()
