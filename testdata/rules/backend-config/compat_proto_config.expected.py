"""A protobuf message as backend_config, which no jax release lowered: make test-compat
checks that the rewrite emits the message's deterministic serialization."""
import numpy as np
from google.protobuf import struct_pb2

from jax._src.interpreters import mlir
from jax.extend.core import Primitive

scale_p = Primitive("ccm_scale")
scale_p.def_abstract_eval(lambda x: x)


def _scale_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    config = struct_pb2.Value(number_value=1.0)
    return mlir.custom_call("ccm_scale_f32", result_types=[out_type], operands=[x],
                            backend_config=config.SerializeToString(deterministic=True)).results


mlir.register_lowering(scale_p, _scale_lowering, platform="cpu")


def scale(x):
    return scale_p.bind(x)


def compat_entry():
    return scale, (np.ones((2, 3), np.float32),)
