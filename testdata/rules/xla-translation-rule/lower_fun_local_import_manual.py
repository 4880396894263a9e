"""A rule forwarding to ``xla.lower_fun`` through its own import, also used other than
by its registration: manual, as at module level, and both sites are reported."""
from jax import core
from jax.interpreters import xla

shared_p = core.Primitive("shared")


def _scale_impl(x):
    return 2 * x


def _shared_rule(c, x):
    from jax.interpreters import xla
    return xla.lower_fun(_scale_impl, multiple_results=False)(c, x)


xla.translations[shared_p] = _shared_rule
OTHER = _shared_rule
