"""A package from the jax 0.3/0.4 transition registers both an MLIR lowering and the
older translation rule for the same primitive; jax used the MLIR one, so the
translation registration goes and its rule is rewritten where it stands."""
import numpy as np
from jax.interpreters import mlir, xla
from jax.lib import xla_client

from ._ops import lfilter_lowering, lfilter_p


def _lfilter_translation(c, b, a, x):
    shape = xla_client.Shape.array_shape(np.dtype(np.complex64), (16,), (0,))
    return xla_client.ops.CustomCallWithLayout(
        c, b"lfilter", operands=(b, a, x), shape_with_layout=shape, operand_shapes_with_layout=(shape, shape, shape)
    )


mlir.register_lowering(lfilter_p, lfilter_lowering, platform="cpu")
xla.backend_specific_translations["cpu"][lfilter_p] = _lfilter_translation
