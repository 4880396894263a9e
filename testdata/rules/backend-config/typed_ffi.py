"""api_version=4 with plain values: typed-FFI attributes built inside the lowering rule."""
from jax._src.interpreters import mlir

SCALE = {"alpha": 2.0, "n": 3}


def lower(ctx, x):
    t = mlir.aval_to_ir_type(ctx.avals_out[0])
    mlir.custom_call("a", result_types=[t], operands=[x], backend_config={"alpha": 2.0, "mode": "fast"}, api_version=4)
    return mlir.custom_call("b", result_types=[t], operands=[x], backend_config=SCALE, api_version=4)


# At module level there is no MLIR context to build attributes in.
rule = mlir.custom_call("c", result_types=[], operands=[], backend_config={"a": 1}, api_version=4)
