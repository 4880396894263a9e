"""The value given by keyword, ``ir_constant(val=...)``: wrapped where it stands."""
import jax.interpreters.mlir as mlir
from jaxlib.hlo_helpers import custom_call


def _scaled_lowering(ctx, x, *, n, scale):
    x_type = mlir.ir.RankedTensorType(x.type)
    return custom_call(
        "cpu_scaled",
        result_types=[x_type],
        operands=[x, mlir.ir_constant(val=n), mlir.ir_constant(val=2.5)],
        operand_layouts=[(0,), (), ()],
        result_layouts=[(0,)],
    ).results


def older(n, scale):
    return [
        mlir.ir_constant(val=n, canonicalize_types=False),
        mlir.ir_constants(canonicalize_types=True, val=scale),
        mlir.ir_constant(val=n, aval=None),
    ]
