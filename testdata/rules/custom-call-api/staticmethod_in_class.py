"""Distributed FFT primitive class (jaxdecomp style): the lowering rule is a static method."""
from jax.interpreters import mlir
from jaxlib.hlo_helpers import custom_call


class FFTPrimitive:
    name = "fft"

    @staticmethod
    def lowering(ctx, x, *, fft_type, opaque):
        (aval_out,) = ctx.avals_out
        result_type = mlir.aval_to_ir_type(ctx.module_context, aval_out)
        layout = tuple(range(len(aval_out.shape) - 1, -1, -1))
        return custom_call(
            "pfft3d",
            result_types=[result_type],
            operands=[x],
            operand_layouts=[layout],
            result_layouts=[layout],
            backend_config=opaque,
        ).results
