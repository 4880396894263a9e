"""An operand list appended to after it is written (its display no longer lists the operands,
so they cannot be paired with avals: manual), and one input passed twice (each position gets
its own aval, so both explicit layouts survive)."""
import numpy as np
from jax.interpreters import mlir, xla
from jax.lib import xla_client
import jax

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


def _knn_translation(ctx, points):
    shape = ctx.avals_in[0]
    dims = shape.shape
    dtype = shape.dtype
    s = (1, 0)
    return jax.ffi.ffi_lowering(
        "cpu_knn",
        api_version=1,
        operand_layouts=(s, s),
        result_layouts=[(1, 0)],
    )(ctx.replace(avals_in=[ctx.avals_in[0], ctx.avals_in[0]]), points, points)


scaled_sum_p = object()
knn_p = object()
xla.backend_specific_translations["cpu"][scaled_sum_p] = _scaled_sum_translation
mlir.register_lowering(knn_p, _knn_translation, platform="cpu")
