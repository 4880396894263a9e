"""An op built directly with Python attribute values, and an MHLO custom call."""
import json
from jax.interpreters import mlir
from jax.interpreters.mlir import ir
from jax.extend.mlir.dialects import stablehlo as hlo


def _lowering(ctx, x, *, alpha):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    opaque = json.dumps({"alpha": alpha})
    op = hlo.CustomCallOp([out_type], [x], call_target_name="scale", backend_config=ir.StringAttr.get(opaque), api_version=mlir.i32_attr(2))
    op2 = hlo.CustomCallOp([out_type], [x], call_target_name="scale", backend_config=ir.StringAttr.get(b"\x00"), has_side_effect=True)
    return op.results
