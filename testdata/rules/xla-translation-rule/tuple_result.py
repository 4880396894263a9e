"""A Kepler solver in the style of the classic extending-jax tutorial: one builder rule
for two outputs, the element count passed as a constant, no opaque data."""
from functools import partial

import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

kepler_p = Primitive("kepler")
kepler_p.multiple_results = True


def kepler(mean_anom, ecc):
    return kepler_p.bind(mean_anom, ecc)


kepler_p.def_abstract_eval(lambda m, e: (core.ShapedArray(m.shape, m.dtype), core.ShapedArray(m.shape, m.dtype)))


def _kepler_translation(c, mean_anom, ecc, *, size=8):
    shape = xla_client.Shape.array_shape(np.dtype(np.float32), (size,), (0,))
    return xla_client.ops.CustomCallWithLayout(
        c,
        b"cpu_kepler_f32",
        operands=(xla_client.ops.ConstantLiteral(c, size), mean_anom, ecc),
        shape_with_layout=xla_client.Shape.tuple_shape((shape, shape)),
        operand_shapes_with_layout=(
            xla_client.Shape.array_shape(np.dtype(np.int64), (), ()),
            shape,
            shape,
        ),
    )


xla.backend_specific_translations["cpu"][kepler_p] = partial(_kepler_translation, size=8)


def compat_entry():
    return kepler, (np.linspace(0, 1, 8, dtype=np.float32), np.full(8, 0.1, np.float32))
