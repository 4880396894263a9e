"""Values of unknown type are only reported (no --unsafe-fixes): the file stays as it is."""
from jax._src.interpreters import mlir


def lower(ctx, x, *, config):
    t = mlir.aval_to_ir_type(ctx.avals_out[0])
    mlir.custom_call("a", result_types=[t], operands=[x], backend_config=config)
    mlir.custom_call("b", result_types=[t], operands=[x], backend_config=ctx.module_context.config)
    return mlir.custom_call("c", result_types=[t], operands=[x], backend_config=make_config(x))


def make_config(x):
    return {"shape": list(x.type.shape)}
