"""Row-major layouts built once per operand in a list comprehension and picked by index
for the operands and the result."""
import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax

p = Primitive("axpy")
p.def_abstract_eval(lambda x, y: ShapedArray(x.shape, x.dtype))


def rule(ctx, x, y):
    shapes = [tuple(range(len(a.shape) - 1, -1, -1)) for a in ctx.avals_in]
    return jax.ffi.ffi_lowering(
        "axpy",
        api_version=1,
        operand_layouts=(shapes[0], shapes[1]),
        result_layouts=[shapes[0]],
    )(ctx, x, y)


mlir.register_lowering(p, rule, platform="cpu")


def compat_entry():
    return p.bind, (np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
