"""jaxlib <= 0.4.1 mhlo_helpers: positional arguments, one value returned for one result."""
from jax.interpreters.mlir import ir
from jaxlib.mhlo_helpers import custom_call


def _cumsum_lowering(ctx, x):
    x_type = ir.RankedTensorType(x.type)
    layout = tuple(range(len(x_type.shape) - 1, -1, -1))
    out = custom_call(b"cpu_cumsum", [x_type], [x], [layout], [layout])
    return [out]
