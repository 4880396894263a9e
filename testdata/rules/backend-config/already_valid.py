"""Valid configs stay byte for byte: str, bytes, None, f-strings, serialised values, MLIR attributes."""
import json

import numpy as np
from jax._src.interpreters import mlir
from jax._src.lib.mlir import ir


def lower(ctx, x, *, n, cfg, msg):
    t = mlir.aval_to_ir_type(ctx.avals_out[0])
    mlir.custom_call("a", result_types=[t], operands=[x], backend_config="opaque")
    mlir.custom_call("b", result_types=[t], operands=[x], backend_config=b"\x00\xff")
    mlir.custom_call("c", result_types=[t], operands=[x], backend_config=None)
    mlir.custom_call("d", result_types=[t], operands=[x], backend_config=f"n={n}")
    mlir.custom_call("e", result_types=[t], operands=[x], backend_config=json.dumps(cfg))
    mlir.custom_call("f", result_types=[t], operands=[x], backend_config=msg.SerializeToString())
    mlir.custom_call("g", result_types=[t], operands=[x], backend_config=str(n).encode())
    mlir.custom_call("h", result_types=[t], operands=[x], backend_config=np.asarray([n]).tobytes())
    mlir.custom_call(
        "i",
        result_types=[t],
        operands=[x],
        backend_config={"n": mlir.i64_attr(n), "mode": ir.StringAttr.get("fast"), "x": mlir.ir_attribute(1.0)},
        api_version=4,
    )
    mlir.custom_call("j", result_types=[t], operands=[x], backend_config="a" "b")
    mlir.custom_call("k", result_types=[t], operands=[x], backend_config=ir.DictAttr.get({}))
