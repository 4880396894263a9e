"""A polynomial-roots binding whose constants are built from the rule's own operands: an XlaOp
was never a constant's value (the XlaBuilder call failed), so nothing is known to preserve."""
import numpy as np
from jax.interpreters import xla
from jax.lib import xla_client

xops = xla_client.ops


def _roots_translation(c, size, deg, coeffs):
    shape_input = xla_client.Shape.array_shape(np.dtype(np.complex128), (4,), (0,))
    return xops.CustomCallWithLayout(
        c, b"ehrlich_aberth",
        operands=(xops.ConstantLiteral(c, size), xops.ConstantLiteral(c, deg), coeffs),
        operand_shapes_with_layout=(xla_client.Shape.array_shape(np.dtype(np.int64), (), ()), xla_client.Shape.array_shape(np.dtype(np.int64), (), ()), shape_input),
        shape_with_layout=shape_input,
    )


def register(prim):
    xla.backend_specific_translations["cpu"][prim] = _roots_translation
