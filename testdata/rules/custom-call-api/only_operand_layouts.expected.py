# ccmigrate-args: --annotate
"""Only operand layouts were constrained: StableHLO rejects that op, so which result
layouts were meant is the author's call (manual, with --annotate a TODO)."""
from jax.interpreters import mlir


def _transpose_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    # TODO(ccmigrate): [custom-call-api] jax.interpreters.mlir.custom_call call: only operand layouts were given, which the StableHLO verifier rejects; decide the result layouts (ffi_lowering would assume row-major) and pass both lists; replace it with `jax.ffi.ffi_lowering(name, api_version=<old, 2 by default>, backend_config=..., result_types=..., operand_layouts=..., result_layouts=...)(ctx, *operands)` inside the lowering rule (`skip_ffi_layout_processing=True` when the old call gave no layouts)
    return mlir.custom_call("col_major_copy", result_types=[out_type], operands=[x],
                            operand_layouts=[(0, 1)]).results
