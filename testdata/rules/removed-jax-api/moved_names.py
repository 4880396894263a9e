"""Names that moved: the array-class module, the jax.config module, jax.core.Token."""
from jax.abstract_arrays import ShapedArray
from jax import abstract_arrays
from jax.config import config
from jax.core import Tracer, Token

config.update("jax_enable_x64", True)


def abstract_eval(x):
    return ShapedArray(x.shape, x.dtype), abstract_arrays.ShapedArray(x.shape, x.dtype)


def is_token(t):
    return isinstance(t, (Token, Tracer))
