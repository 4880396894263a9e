"""A public function with a required ``float`` parameter the primitive takes as a param:
a probe gives it a float, not an array."""
import struct

import jax
from jax.extend.core import Primitive
from jax.interpreters import mlir

scaled_p = Primitive("hostile_scalar_params")
scaled_p.def_abstract_eval(lambda x, *, eps: x)


def _lowering(ctx, x, *, eps):
    return jax.ffi.ffi_lowering("scalar_params_target", api_version=2, backend_config=struct.pack("f", eps))(ctx, x)


mlir.register_lowering(scaled_p, _lowering)


def normalize(x, eps: float):
    return scaled_p.bind(x, eps=eps)
