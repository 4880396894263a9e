"""``xla.lower_fun`` forms with no faithful MLIR counterpart stay manual: the oldest
signature without ``multiple_results=``, a ``backend=``, and a forwarding rule that is
also called directly."""
from jax import core
from jax.interpreters import xla

untraceable_p = core.Primitive("untraceable")
pinned_p = core.Primitive("pinned")
shared_p = core.Primitive("shared")


def _impl(x):
    return (x,)


xla.translations[untraceable_p] = xla.lower_fun(
    _impl, instantiate=True
)
xla.translations[pinned_p] = xla.lower_fun(_impl, multiple_results=True, backend="cpu")


def _shared_rule(c, x):
    return xla.lower_fun(_impl, multiple_results=True)(c, x)


xla.translations[shared_p] = _shared_rule
OTHER = _shared_rule
