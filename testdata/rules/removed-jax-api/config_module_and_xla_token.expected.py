"""An MPI binding's setup checks and type checks from the jax 0.2 era: `import jax.config`
fails now (jax.config is the config object), omnistaging is always on, and the token class
moved out of jax.interpreters.xla."""
import functools

from jax import core
from jax.extend.core import Token


def ensure_omnistaging():
    import jax

    if not True:
        raise RuntimeError("this package requires JAX omnistaging to be enabled.")


def enable_x64():
    import jax

    jax.config.update("jax_enable_x64", True)


def translation_rule_cpu(func):
    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        ensure_omnistaging()
        return func(*args, **kwargs)

    return wrapped


def check_token(token):
    if not isinstance(token, (type(None), Token, core.Tracer)):
        raise TypeError(f"expected a token, got {type(token)}")
