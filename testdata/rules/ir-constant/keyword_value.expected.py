"""The value given by keyword, ``ir_constant(val=...)``: wrapped where it stands."""
import jax.interpreters.mlir as mlir
from jaxlib.hlo_helpers import custom_call
import numpy


def _ccmigrate_canonical_constant(value):
    """The constant ir_constant(value, canonicalize_types=True) built (added by ccmigrate)."""
    import jax
    import numpy as np

    value = np.asarray(value)
    return value.astype(jax.dtypes.canonicalize_dtype(value.dtype))


def _scaled_lowering(ctx, x, *, n, scale):
    x_type = mlir.ir.RankedTensorType(x.type)
    return custom_call(
        "cpu_scaled",
        result_types=[x_type],
        operands=[x, mlir.ir_constant(val=numpy.asarray(n)), mlir.ir_constant(val=numpy.asarray(2.5))],
        operand_layouts=[(0,), (), ()],
        result_layouts=[(0,)],
    ).results


def older(n, scale):
    return [
        mlir.ir_constant(val=numpy.asarray(n)),
        mlir.ir_constants(val=_ccmigrate_canonical_constant(scale)),
        mlir.ir_constant(val=n, aval=None),
    ]
