"""Names bound once to literals (module level or local) are serialised; rebound ones are not proven."""
from jax._src.interpreters import mlir

DEFAULTS = {"tile": 128, "mode": "fast"}
SIZES: list = [1, 2, 4]


def lower(ctx, x, *, flag):
    t = mlir.aval_to_ir_type(ctx.avals_out[0])
    local_cfg = dict(alpha=2.0, beta=[1, 2])
    mlir.custom_call("a", result_types=[t], operands=[x], backend_config=DEFAULTS)
    mlir.custom_call("b", result_types=[t], operands=[x], backend_config=SIZES)
    mlir.custom_call("c", result_types=[t], operands=[x], backend_config=local_cfg)
    twice = {"a": 1}
    if flag:
        twice = "already a string"
    return mlir.custom_call("d", result_types=[t], operands=[x], backend_config=twice)
