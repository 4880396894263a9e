"""``xla.lower_fun`` reached through imports inside functions (lazy imports): rewritten
as at module level. A local ``from jax.interpreters.xla import lower_fun`` goes with the
registration it served (the name is gone from that module). The manual counterpart is
lower_fun_local_import_manual.py."""
from jax import core
from jax.interpreters import xla

axpy_p = core.Primitive("axpy")
scale_p = core.Primitive("scale")


def _axpy_impl(a, x, y):
    return a * x + y


def _scale_impl(x):
    return 2 * x


def register():
    from jax.interpreters.xla import lower_fun
    xla.translations[axpy_p] = lower_fun(_axpy_impl, multiple_results=False)


def _scale_rule(c, *args, **params):
    from jax.interpreters import xla
    return xla.lower_fun(_scale_impl, multiple_results=False)(c, *args, **params)


xla.translations[scale_p] = _scale_rule

