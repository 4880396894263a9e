"""A sparse triangular solve in the style of small KLU bindings: one builder rule serves
several primitives through a registering decorator that binds the target name, flattens
the batched operands with Reshape/Transpose around the custom call and restores the
result's shape afterwards."""
from functools import partial

import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

tri_solve_f32 = Primitive("tri_solve_f32")
tri_solve_f32.def_abstract_eval(lambda a, b: core.ShapedArray(b.shape, b.dtype))


def register_cpu(primitive):
    name = primitive.name.encode()

    def decorator(fun):
        xla.backend_specific_translations["cpu"][primitive] = partial(fun, name)
        return fun

    return decorator


@register_cpu(tri_solve_f32)
def tri_solve_translation(target, c, a, b):
    a_shape = c.get_shape(a)
    b_shape = c.get_shape(b)
    *batch, n = a_shape.dimensions()[:-1]
    n_batch = int(np.prod(batch, dtype=np.int64))
    a = xla_client.ops.Reshape(a, (n_batch * n * n,))
    a_shape = c.get_shape(a)
    if batch:
        _, n_col, *rest = b_shape.dimensions()
    else:
        n_col, *rest = b_shape.dimensions()
    n_rhs = int(np.prod(rest, dtype=np.int64))
    b = xla_client.ops.Reshape(b, (n_batch, n_col, n_rhs))
    b = xla_client.ops.Transpose(b, (0, 2, 1))
    b = xla_client.ops.Reshape(b, (n_batch * n_rhs * n_col,))
    b_shape = c.get_shape(b)
    n_size = xla_client.ops.ConstantLiteral(c, np.int32(n))
    n_size_shape = xla_client.Shape.array_shape(np.dtype(np.int32), (), ())
    result = xla_client.ops.CustomCallWithLayout(
        c,
        target,
        operands=(n_size, a, b),
        operand_shapes_with_layout=(n_size_shape, a_shape, b_shape),
        shape_with_layout=b_shape,
        opaque=b"\x01",
    )
    result = xla_client.ops.Reshape(result, (n_batch, n_rhs, n_col))
    result = xla_client.ops.Transpose(result, (0, 2, 1))
    if batch:
        result = xla_client.ops.Reshape(result, (n_batch, n_col, *rest))
    else:
        result = xla_client.ops.Reshape(result, (n_col, *rest))
    return result


def compat_entry():
    return tri_solve_f32.bind, (np.ones((2, 3, 3), np.float32), np.ones((2, 3, 4), np.float32))
