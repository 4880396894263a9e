"""Every argument by keyword, the target name not first: the rewrite passes the target
positionally, so it moves to the front (a positional argument after keywords would not
even be Python)."""
from jax.interpreters import mlir


def _lowering(ctx, x):
    return mlir.custom_call(
        result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])],
        call_target_name="cpu_scale",
        operands=[x],
        operand_layouts=[(0,)],
        result_layouts=[(0,)],
    ).results
