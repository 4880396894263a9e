"""Primitives of the jax 0.2/0.3 era lowered by tracing a Python implementation with
``xla.lower_fun``: registered as a builder rule, with avals, per platform, with
``register_translation``, and through a rule that only forwards to ``lower_fun``."""
import jax.numpy as jnp
from jax import core
from jax.interpreters import mlir

axpy_p = core.Primitive("axpy")
split_p = core.Primitive("split")
split_p.multiple_results = True
clip_p = core.Primitive("clip")
scale_p = core.Primitive("scale")


def _axpy_impl(a, x, y):
    return a * x + y


def _split_impl(x):
    return [x[: x.shape[0] // 2], x[x.shape[0] // 2 :]]


mlir.register_lowering(axpy_p, mlir.lower_fun(_axpy_impl, multiple_results=False))
mlir.register_lowering(clip_p, mlir.lower_fun(jnp.tanh, multiple_results=False), platform="gpu")
mlir.register_lowering(scale_p, mlir.lower_fun(lambda x: 2 * x, multiple_results=False), platform="cpu")


def custom_primitive(name, lowering, multiple_results=False):
    p = core.Primitive(name)
    p.multiple_results = multiple_results
    mlir.register_lowering(p, mlir.lower_fun(lowering, multiple_results=multiple_results))
    return p


class FlatPrimitive(core.Primitive):
    def __init__(self, name, impl):
        super().__init__(name)
        self.multiple_results = True
        self.impl = impl

        mlir.register_lowering(self, mlir.lower_fun(self.impl, multiple_results=True))


mlir.register_lowering(split_p, mlir.lower_fun(_split_impl, multiple_results=True))
