"""An MPI binding's lowering unpacking the old one-element list of token types: the name
takes the one type the call returns now; where the name is then only returned, which a later
run could not tell from the old list, the unpacking stays and unpacks `[token_type()]`."""
from jax.interpreters.mlir import token_type


def rule(ctx, x, token):
    (tok,) = token_type()
    [tok2] = token_type()
    tok3, = token_type()
    return tok, tok2, tok3


def token_result(ctx):
    tok, = token_type()
    return tok
