"""exoplanet-core's Kepler solver: the generator checking the operands' dtypes names its
variable `shape`, which the rule later binds to an XLA shape; the two are different
names (the comprehension has its own scope)."""
import numpy as np
import jax.numpy as jnp
from jax.interpreters import xla
from jax.lib import xla_client

xops = xla_client.ops


def kepler_translation_rule(c, M, ecc):
    shapes = (c.get_shape(M), c.get_shape(ecc))
    if any(shape.element_type() != np.float64 for shape in shapes):
        raise ValueError("float64 required")
    dims = shapes[0].dimensions()
    N = np.prod(dims).astype(np.int32)
    order = tuple(range(len(dims) - 1, -1, -1))
    shape = xla_client.Shape.array_shape(jnp.dtype(np.float64), dims, order)
    return xops.CustomCallWithLayout(
        c, b"solve_kepler",
        operands=(xops.ConstantLiteral(c, N), M, ecc),
        shape_with_layout=xla_client.Shape.tuple_shape((shape, shape)),
        operand_shapes_with_layout=(xla_client.Shape.array_shape(jnp.dtype(jnp.int32), (), ()), shape, shape),
    )


def register(prim):
    xla.backend_specific_translations["cpu"][prim] = kepler_translation_rule
