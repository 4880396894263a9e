"""A tuple-typed mhlo.CustomCallOp built with the oldest bindings' `operands_=` keyword and
unpacked with GetTupleElementOp (a CUDA primitives package's shape)."""
import jaxlib.mlir.dialects.mhlo as mhlo
import jaxlib.mlir.ir as ir
from jax.interpreters import mlir
from jax.extend.mlir.dialects import stablehlo


def lowering_rule(ctx, *args):
    out_types = [mlir.aval_to_ir_type(ctx.module_context, aval) for aval in ctx.avals_out]
    i32_type = ir.IntegerType.get_signless(32)
    out = stablehlo.CustomCallOp(
        result=[ir.TupleType.get_tuple(out_types)],
        inputs=args,
        call_target_name=ir.StringAttr.get(b"two_out"),
        has_side_effect=ir.BoolAttr.get(False),
        backend_config=ir.StringAttr.get(b""),
        api_version=ir.IntegerAttr.get(i32_type, 2),
    )
    return [mhlo.GetTupleElementOp(out, ir.IntegerAttr.get(i32_type, i)).result for i in range(len(out_types))]
