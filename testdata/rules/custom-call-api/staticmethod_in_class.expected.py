"""Distributed FFT primitive class (jaxdecomp style): the lowering rule is a static method."""
from jax.interpreters import mlir
import jax


class FFTPrimitive:
    name = "fft"

    @staticmethod
    def lowering(ctx, x, *, fft_type, opaque):
        (aval_out,) = ctx.avals_out
        result_type = mlir.aval_to_ir_type(ctx.module_context, aval_out)
        layout = tuple(range(len(aval_out.shape) - 1, -1, -1))
        return jax.ffi.ffi_lowering(
            "pfft3d",
            api_version=2,
            result_types=[result_type],
            operand_layouts=[layout],
            result_layouts=[layout],
            backend_config=opaque,
        )(ctx, x)
