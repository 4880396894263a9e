# ccmigrate-args: --annotate
"""A dict of plain values bound to a name, passed with api_version=4, under --annotate:
the comprehension of typed attributes the rewrite writes is final (a second run adds no
TODO to it)."""
from jax._src.interpreters import mlir

SCALE = {"alpha": 2.0, "n": 3}


def lower(ctx, x):
    t = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return mlir.custom_call("scale", result_types=[t], operands=[x], backend_config=SCALE, api_version=4)
