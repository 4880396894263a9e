"""jaxlib <= 0.4.1 mhlo_helpers: positional arguments, one value returned for one result."""
from jax.interpreters.mlir import ir
import jax


def _cumsum_lowering(ctx, x):
    x_type = ir.RankedTensorType(x.type)
    layout = tuple(range(len(x_type.shape) - 1, -1, -1))
    out = jax.ffi.build_ffi_lowering_function("cpu_cumsum", api_version=2, result_types=[x_type], operand_layouts=[layout], result_layouts=[layout])(ctx, x).result
    return [out]
