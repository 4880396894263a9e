from jax.interpreters import mlir


def out_type(ctx):
    return mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
