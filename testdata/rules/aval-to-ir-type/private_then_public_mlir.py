"""A distributed FFT's lowering: `mlir` is imported twice, the private module and then the
public one; functions see the last, so its aval_to_ir_type is jax's and is migrated."""
import jaxlib.mlir.ir as ir
from jax._src.interpreters import mlir
from jax.interpreters import mlir


class FFTPrimitive:
    @staticmethod
    def lowering(ctx, a, *, fft_type):
        (aval_out,) = ctx.avals_out
        return [mlir.hlo.ReshapeOp(mlir.aval_to_ir_type(aval_out), a).result]
