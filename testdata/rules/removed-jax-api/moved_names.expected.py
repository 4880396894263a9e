"""Names that moved: the array-class module, the jax.config module, jax.core.Token."""
from jax.core import ShapedArray, Tracer
from jax import config
from jax.extend.core import Token

config.update("jax_enable_x64", True)


def abstract_eval(x):
    return ShapedArray(x.shape, x.dtype), ShapedArray(x.shape, x.dtype)


def is_token(t):
    return isinstance(t, (Token, Tracer))
