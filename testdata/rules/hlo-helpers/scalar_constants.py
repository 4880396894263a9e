"""Scalar operands built with hlo_s32 / hlo_u8 and a type from shape_dtype_to_ir_type;
mk_result_types_and_shapes has no drop-in replacement: reported."""
import numpy as np
from jaxlib.hlo_helpers import hlo_s32, hlo_u8, mk_result_types_and_shapes, shape_dtype_to_ir_type


def _operands(ctx, n, flag, shape):
    out_type = shape_dtype_to_ir_type(shape, np.float32)
    return [hlo_s32(n), hlo_u8(flag)], out_type, mk_result_types_and_shapes
