"""exoplanet-core's contact points: the operands' builder shapes listed with
``list(map(c.get_shape, args))``, read as ``shapes[0].dimensions()``, and one row-major
shape repeated per operand with ``tuple(shape for _ in args)``."""
from functools import partial

import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

xops = xla_client.ops

contact_points_p = Primitive("contact_points")
contact_points_p.multiple_results = True
contact_points_p.def_abstract_eval(
    lambda *args: (ShapedArray(args[0].shape, np.float32), ShapedArray(args[0].shape, np.int32)))


def _contact_points_translation_rule(c, *args):
    shapes = list(map(c.get_shape, args))
    if any(shape.element_type() != np.float32 for shape in shapes):
        raise ValueError("float32 is required")
    dims = tuple(shapes[0].dimensions())
    N = np.prod(dims).astype(np.int32)
    order = tuple(range(len(dims) - 1, -1, -1))
    shape = xla_client.Shape.array_shape(np.dtype(np.float32), dims, order)
    return xops.CustomCallWithLayout(
        c,
        b"contact_points",
        operands=(xops.ConstantLiteral(c, N),) + args,
        shape_with_layout=xla_client.Shape.tuple_shape(
            (shape, xla_client.Shape.array_shape(np.dtype(np.int32), dims, order))
        ),
        operand_shapes_with_layout=(xla_client.Shape.array_shape(np.dtype(np.int32), (), ()),)
        + tuple(shape for _ in args),
    )


xla.backend_specific_translations["cpu"][contact_points_p] = _contact_points_translation_rule


def compat_entry():
    args = tuple(np.ones((2, 3), np.float32) for _ in range(3))
    return partial(contact_points_p.bind), args
