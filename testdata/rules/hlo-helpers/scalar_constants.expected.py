"""Scalar operands built with hlo_s32 / hlo_u8 and a type from shape_dtype_to_ir_type;
mk_result_types_and_shapes has no drop-in replacement: reported."""
import numpy as np
from jaxlib.hlo_helpers import mk_result_types_and_shapes
from jax.interpreters import mlir
from jax.interpreters.mlir import ir


def _operands(ctx, n, flag, shape):
    out_type = ir.RankedTensorType.get(shape, mlir.dtype_to_ir_type(np.dtype(np.float32)))
    return [mlir.ir_constant(np.array(n, dtype=np.int32)), mlir.ir_constant(np.array(flag, dtype=np.uint8))], out_type, mk_result_types_and_shapes
