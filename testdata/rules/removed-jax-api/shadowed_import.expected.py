"""A removed name imported, then bound again at module level before anything reads it:
the import only fails. One read before the new binding keeps the other import."""
from jax.lax.lax import standard_abstract_eval
from jax.core import Primitive


def create_token(x):
    """Read when called, after the module has run."""
    return create_token_p.bind(x)


create_token_p = Primitive("create_token_ordered")

fallback_eval = standard_abstract_eval
standard_abstract_eval = None


def build(factory):
    """In a function body the same holds for the statements after the import."""
    ops = factory()
    return ops.Add


def build_with_walrus(factory):
    (ops := factory())
    return ops.Mul
