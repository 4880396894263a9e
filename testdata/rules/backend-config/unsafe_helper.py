# ccmigrate-args: --unsafe-fixes
"""With --unsafe-fixes, values of unknown type go through a runtime serialiser added once."""
from jax._src.interpreters import mlir


def lower(ctx, x, *, config):
    t = mlir.aval_to_ir_type(ctx.avals_out[0])
    mlir.custom_call("a", result_types=[t], operands=[x], backend_config=config)
    return mlir.custom_call("b", result_types=[t], operands=[x], backend_config=config.opaque)
