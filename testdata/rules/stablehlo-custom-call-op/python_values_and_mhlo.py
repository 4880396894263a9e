"""An op built directly with Python attribute values, and an MHLO custom call."""
import json
from jax.interpreters import mlir
from jax.interpreters.mlir import ir, hlo
from jaxlib.mlir.dialects import mhlo


def _lowering(ctx, x, *, alpha):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    opaque = json.dumps({"alpha": alpha})
    op = hlo.CustomCallOp([out_type], [x], call_target_name="scale", backend_config=opaque, api_version=2)
    op2 = mhlo.CustomCallOp([out_type], [x], call_target_name="scale", backend_config=b"\x00", has_side_effect=True)
    return op.results
