"""A shape read back from the builder, then rebound to an XLA array shape inside a branch
(the layout depends on a parameter): the name means an XLA shape on some paths only, so
the rule is reported, not rewritten."""
import numpy as np
from jax.interpreters import xla
from jax.extend.core import Primitive
from jaxlib import xla_client

solve_p = Primitive("solve")


def _solve_translation(c, x, *, transpose):
    shape = c.get_shape(x)
    dims = shape.dimensions()
    if transpose:
        shape = xla_client.Shape.array_shape(np.dtype(shape.element_type()), dims, (0, 1))
    return xla_client.ops.CustomCallWithLayout(
        c, b"solve_f32", operands=(x,), shape_with_layout=shape,
        operand_shapes_with_layout=(shape,))


xla.backend_specific_translations["cpu"][solve_p] = _solve_translation
