"""Module names declared ``global`` inside the lowering rule: names the resolver sees
bound twice, so the stablehlo dialect is asked for both plainly (for mhlo) and under the
old name hlo; both imports are added, without failing."""
import json
from jax.interpreters import mlir
from jax.interpreters.mlir import ir, hlo
from jaxlib.mlir.dialects import mhlo


def _lowering(ctx, x, *, alpha):
    global hlo, json, mhlo, mlir
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    op = hlo.CustomCallOp([out_type], [x], call_target_name="scale", backend_config=json.dumps({"alpha": alpha}), api_version=2)
    mhlo.CustomCallOp([out_type], [x], call_target_name="scale", backend_config=b"\x00", has_side_effect=True)
    return op.results
