# ccmigrate-args: --select custom-call-api,backend-config
"""A fused-attention-style call through jaxlib.hlo_helpers.custom_call returning an output,
a scratch buffer and an activation, of which the rule keeps two; the result types are a
display of type constructors, the layouts come from a helper, and the config from a
builder that returns json.dumps; lowers on jax 0.7.2, the last release with
jaxlib.hlo_helpers (make test-compat)."""
import json

import numpy as np
from jaxlib.hlo_helpers import custom_call
from jaxlib.mlir import ir

from jax.extend.core import Primitive
from jax.interpreters import mlir

fmha_p = Primitive("ccm_fmha")
fmha_p.multiple_results = True
fmha_p.def_abstract_eval(lambda q, k: [q, q])


def default_layouts(*shapes):
    return [range(len(shape) - 1, -1, -1) for shape in shapes]


def create_backend_config(batch, is_training):
    backend_config = {"batch": str(batch)}
    if is_training:
        backend_config = {**backend_config, "is_training": True}
    backend_config = json.dumps(backend_config)
    return backend_config


def _fmha_lowering(ctx, q, k):
    q_type = ir.RankedTensorType(q.type)
    shape = q_type.shape
    out = custom_call(
        b"ccm_fmha_f32",
        result_types=[
            ir.RankedTensorType.get(shape, q_type.element_type),
            ir.RankedTensorType.get((0,), ir.IntegerType.get_unsigned(8)),
            ir.RankedTensorType.get(shape, q_type.element_type),
        ],
        operands=[q, k],
        backend_config=create_backend_config(shape[0], True),
        operand_layouts=default_layouts(shape, shape),
        result_layouts=[(0, 1)] + default_layouts((0,), shape),
    )
    return [out.results[0], out.results[2]]


mlir.register_lowering(fmha_p, _fmha_lowering, platform="cpu")


def compat_entry():
    return fmha_p.bind, (np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32))
