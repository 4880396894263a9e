"""Row-major layouts built once per operand in a list comprehension and picked by index
for the operands and the result."""
import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

p = Primitive("axpy")
p.def_abstract_eval(lambda x, y: ShapedArray(x.shape, x.dtype))


def rule(ctx, avals_in, avals_out, x, y):
    shapes = [xla_client.Shape.array_shape(a.dtype, a.shape, tuple(range(len(a.shape) - 1, -1, -1))) for a in avals_in]
    return [xla_client.ops.CustomCallWithLayout(ctx.builder, b"axpy", operands=(x, y), shape_with_layout=shapes[0],
                                                operand_shapes_with_layout=(shapes[0], shapes[1]))]


xla.register_translation(p, rule, platform="cpu")


def compat_entry():
    return p.bind, (np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
