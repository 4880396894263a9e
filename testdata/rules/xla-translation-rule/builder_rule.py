"""A sparse-solve binding in the style of early pybind11 extensions: a builder rule
passing the system size as a constant operand, registered per platform."""
from functools import partial

import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

xops = xla_client.ops

solve_p = Primitive("solve")


def solve(a, b):
    return solve_p.bind(a, b)


def _solve_abstract_eval(a, b):
    return ShapedArray(b.shape, b.dtype)


solve_p.def_abstract_eval(_solve_abstract_eval)


def _solve_translation(c, a, b, *, platform="cpu"):
    vector = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))
    matrix = xla_client.Shape.array_shape(np.dtype(np.float32), (4, 4), (0, 1))
    return xops.CustomCallWithLayout(
        c,
        b"solve_f32",
        operands=(xops.ConstantLiteral(c, np.int64(4)), a, b),
        shape_with_layout=vector,
        operand_shapes_with_layout=(
            xla_client.Shape.array_shape(np.dtype(np.int64), (), ()),
            matrix,
            vector,
        ),
        opaque=b"\x00lu\xff",
    )


xla.backend_specific_translations["cpu"][solve_p] = partial(_solve_translation, platform="cpu")


def compat_entry():
    return solve, (np.eye(4, dtype=np.float32), np.ones(4, np.float32))
