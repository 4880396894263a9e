import numpy as np
from jax import xla
from jax.extend.core import Primitive
from jaxlib import xla_client

solve_p = Primitive("solve")


def _solve_translation(c, x):
    s = c.get_shape(x)
    shape = xla_client.Shape.array_shape(np.dtype(s.element_type()), s.dimensions(), (0,))
    return xla_client.ops.CustomCallWithLayout(
        c, b"solve_f32", operands=(x,), shape_with_layout=shape,
        operand_shapes_with_layout=(shape,))


xla.backend_specific_translations["cpu"][solve_p] = _solve_translation
