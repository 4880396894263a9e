"""``xla.lower_fun`` reached through imports inside functions (lazy imports): rewritten
as at module level. A local ``from jax.interpreters.xla import lower_fun`` goes with the
registration it served (the name is gone from that module). The manual counterpart is
lower_fun_local_import_manual.py."""
from jax import core
from jax.interpreters import mlir

axpy_p = core.Primitive("axpy")
scale_p = core.Primitive("scale")


def _axpy_impl(a, x, y):
    return a * x + y


def _scale_impl(x):
    return 2 * x


def register():
    mlir.register_lowering(axpy_p, mlir.lower_fun(_axpy_impl, multiple_results=False))


mlir.register_lowering(scale_p, mlir.lower_fun(_scale_impl, multiple_results=False))

