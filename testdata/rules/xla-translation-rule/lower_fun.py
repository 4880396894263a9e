"""Primitives of the jax 0.2/0.3 era lowered by tracing a Python implementation with
``xla.lower_fun``: registered as a builder rule, with avals, per platform, with
``register_translation``, and through a rule that only forwards to ``lower_fun``."""
import jax.numpy as jnp
from jax import core
from jax.interpreters import xla

axpy_p = core.Primitive("axpy")
split_p = core.Primitive("split")
split_p.multiple_results = True
clip_p = core.Primitive("clip")
scale_p = core.Primitive("scale")


def _axpy_impl(a, x, y):
    return a * x + y


def _split_impl(x):
    return [x[: x.shape[0] // 2], x[x.shape[0] // 2 :]]


xla.translations[axpy_p] = xla.lower_fun(_axpy_impl, multiple_results=False)
xla.backend_specific_translations["gpu"][clip_p] = xla.lower_fun(jnp.tanh, multiple_results=False)
xla.register_translation(scale_p, xla.lower_fun(lambda x: 2 * x, multiple_results=False, new_style=True), platform="cpu")


def custom_primitive(name, lowering, multiple_results=False):
    p = core.Primitive(name)
    p.multiple_results = multiple_results
    xla.translations_with_avals[p] = xla.lower_fun(
        lowering, multiple_results=multiple_results, with_avals=True)
    return p


class FlatPrimitive(core.Primitive):
    def __init__(self, name, impl):
        super().__init__(name)
        self.multiple_results = True
        self.impl = impl

        def _xla(c, *xla_args, **params):
            translation = xla.lower_fun(self.impl, multiple_results=True)
            return translation(c, *xla_args, **params)

        xla.translations[self] = _xla


xla.translations[split_p] = xla.lower_fun(_split_impl, True)
