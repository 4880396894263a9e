"""The public mlir module under another name (`import ... as jmlir`): its `hlo` is the same
removed attribute, found through the alias."""
import jaxlib.mlir.ir as ir
from jax.interpreters import mlir as jmlir
from jax.extend.mlir.dialects import stablehlo


def _reshape_lowering(ctx, a):
    (aval_out,) = ctx.avals_out
    return [stablehlo.ReshapeOp(jmlir.aval_to_ir_type(ctx.module_context, aval_out), a).result]
