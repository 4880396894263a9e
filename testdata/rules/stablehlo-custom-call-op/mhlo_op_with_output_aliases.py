"""A Triton bridge (2023) building mhlo.CustomCallOp with operand aliases made by
mhlo.OutputOperandAlias: the aliases move to stablehlo with the op (a stablehlo op
rejects MHLO alias attributes). The jaxlib check before it only raises on releases older
than any the target could be: it guards nothing after it."""
import jaxlib
from jax.interpreters import mlir
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import mhlo


def triton_call_lowering(ctx, *args, call_name, input_output_aliases):
    if jaxlib.version.__version_info__ < (0, 3, 22) and input_output_aliases:
        raise NotImplementedError("`input_output_aliases` only supported on `jaxlib>=0.3.22")
    (aval_out,) = ctx.avals_out
    out_type = mlir.aval_to_ir_type(ctx.module_context, aval_out)
    i32_type = ir.IntegerType.get_signless(32)
    output_operand_aliases = ir.ArrayAttr.get([
        mhlo.OutputOperandAlias.get(
            output_tuple_indices=[],
            operand_index=input,
            operand_tuple_indices=[])
        for input, _ in input_output_aliases])
    out = mhlo.CustomCallOp(
        [out_type],
        args,
        call_target_name=ir.StringAttr.get(call_name),
        has_side_effect=ir.BoolAttr.get(False),
        backend_config=ir.StringAttr.get(""),
        api_version=ir.IntegerAttr.get(i32_type, 1),
        called_computations=ir.ArrayAttr.get([]),
        output_operand_aliases=output_operand_aliases,
    )
    return [out.result]
