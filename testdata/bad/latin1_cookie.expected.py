# -*- coding: latin-1 -*-
"""A latin-1 file (café): rewritten, still latin-1 with its cookie."""
from jax.interpreters import mlir
import json


def _scale_lowering(ctx, x):
    return mlir.custom_call(
        "scale_f32",
        result_types=[mlir.aval_to_ir_type(ctx.avals_out[0])],
        operands=[x],
        backend_config=json.dumps({"label": "café", "alpha": 2.0}, sort_keys=True, separators=(",", ":")),
        api_version=2,
    ).results
