# ccmigrate-args: --annotate
"""Uses of token_type whose intent the code does not show: reported, with what changed."""
from jax.interpreters import mlir


def token_types():
    return mlir.token_type()


def handed_on(register):
    register(mlir.token_type())


def both(types):
    token = mlir.token_type()
    return [*token, *types], token == types[0]


def kept(state):
    state.token_types = mlir.token_type()
