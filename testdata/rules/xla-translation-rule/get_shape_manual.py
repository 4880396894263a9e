# ccmigrate-args: --annotate
"""The classic tutorial shape reads operand shapes from the builder (c.get_shape); there
is no builder in an MLIR lowering rule, so the rule is reported with what to write."""
from functools import partial

import numpy as np
from jax.interpreters import xla
from jax.lib import xla_client

from . import cpu_ops, kepler_p

xops = xla_client.ops


def _kepler_translation(c, mean_anom, ecc, *, platform="cpu"):
    shape = c.get_shape(mean_anom)
    dims = shape.dimensions()
    size = np.prod(dims).astype(np.int64)
    layout = tuple(range(len(dims) - 1, -1, -1))
    shape = xla_client.Shape.array_shape(np.dtype(np.float64), dims, layout)
    return xops.CustomCallWithLayout(
        c,
        platform.encode() + b"_kepler_f64",
        operands=(xops.ConstantLiteral(c, size), mean_anom, ecc),
        shape_with_layout=xla_client.Shape.tuple_shape((shape, shape)),
        operand_shapes_with_layout=(xla_client.Shape.array_shape(np.dtype(np.int64), (), ()), shape, shape),
    )


xla.backend_specific_translations["cpu"][kepler_p] = partial(_kepler_translation, platform="cpu")
