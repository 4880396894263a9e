"""A grid generator whose only operands are its sizes: the builder rule makes one int32
constant per dimension with a generator, ``tuple(ConstantLiteral(c, ...) for v in ...)``,
and passes that tuple whole as the operands (no array operand follows)."""
from functools import partial

import numpy as np
from jax import core
from jax.interpreters import xla
from jax.lib import xla_client

xops = xla_client.ops

grid_p = core.Primitive("grid")


def _grid_abstract(*, shape):
    return core.ShapedArray(shape, np.float32)


def _grid_translation(c, *, shape):
    dims = dict(zip(("rows", "cols"), shape))
    return xops.CustomCallWithLayout(
        c,
        b"fill_grid",
        operands=tuple(xops.ConstantLiteral(c, np.int32(v)) for v in dims.values()),
        shape_with_layout=xla_client.Shape.array_shape(np.dtype(np.float32), shape, tuple(range(len(shape) - 1, -1, -1))),
        operand_shapes_with_layout=tuple(xla_client.Shape.array_shape(np.dtype(np.int32), (), ()) for _ in dims),
    )


grid_p.def_abstract_eval(_grid_abstract)
xla.backend_specific_translations["cpu"][grid_p] = _grid_translation


def compat_entry():
    return partial(grid_p.bind, shape=(4, 3)), ()
