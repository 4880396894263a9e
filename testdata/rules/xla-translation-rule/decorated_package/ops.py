"""Rules wrapped by the package's own decorators, which only pass the rule's arguments
and results through: the lowering rules keep them."""
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

from .decorators import rule_cpu, rule_gpu, trace

scale_p = Primitive("scale")
offset_p = Primitive("offset")


@rule_cpu
def _scale_cpu(c, x, *, n):
    shape = xla_client.Shape.array_shape(np.dtype(np.float32), (n,), (0,))
    return xla_client.ops.CustomCallWithLayout(
        c, b"scale_f32", operands=(x,), shape_with_layout=shape, operand_shapes_with_layout=(shape,),
        opaque=np.int64(n).tobytes())


@rule_gpu
def _scale_gpu(c, x, *, n):
    shape = xla_client.Shape.array_shape(np.dtype(np.float32), (n,), (0,))
    return xla_client.ops.CustomCallWithLayout(
        c, b"scale_f32_gpu", operands=(x,), shape_with_layout=shape, operand_shapes_with_layout=(shape,))


xla.backend_specific_translations["cpu"][scale_p] = _scale_cpu
xla.backend_specific_translations["gpu"][scale_p] = _scale_gpu


@trace("offset_translation")
def _offset_cpu(c, x):
    shape = xla_client.Shape.array_shape(np.dtype(np.float32), (3,), (0,))
    return xla_client.ops.CustomCallWithLayout(
        c, b"offset_f32", operands=(x,), shape_with_layout=shape, operand_shapes_with_layout=(shape,))


xla.backend_specific_translations["cpu"][offset_p] = _offset_cpu
