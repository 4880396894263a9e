"""An operand list appended to after it is written (its display no longer lists the operands,
so they cannot be paired with avals: manual), and one input passed twice (each position gets
its own aval, so both explicit layouts survive)."""
import numpy as np
from jax.interpreters import xla
from jax.lib import xla_client

xops = xla_client.ops


def _scaled_sum_translation(c, x, u, *, n):
    shape = c.get_shape(x)
    dims = shape.dimensions()
    dtype = shape.element_type()
    ops = [x, u]
    ops.append(xops.ConstantLiteral(c, np.int32(n)))
    return xops.CustomCallWithLayout(
        c, b"cpu_scaled_sum",
        operands=ops,
        shape_with_layout=xla_client.Shape.array_shape(dtype, dims, (0,)),
        operand_shapes_with_layout=(
            xla_client.Shape.array_shape(dtype, dims, (0,)),
            xla_client.Shape.array_shape(dtype, dims, (0,)),
            xla_client.Shape.array_shape(np.dtype(np.int32), (), ()),
        ),
    )


def _knn_translation(c, points):
    shape = c.get_shape(points)
    dims = shape.dimensions()
    dtype = shape.element_type()
    s = xla_client.Shape.array_shape(dtype, dims, (1, 0))
    return xops.CustomCallWithLayout(
        c, b"cpu_knn",
        operands=(points, points),
        shape_with_layout=xla_client.Shape.array_shape(dtype, (dims[0], dims[0]), (1, 0)),
        operand_shapes_with_layout=(s, s),
    )


scaled_sum_p = object()
knn_p = object()
xla.backend_specific_translations["cpu"][scaled_sum_p] = _scaled_sum_translation
xla.backend_specific_translations["cpu"][knn_p] = _knn_translation
