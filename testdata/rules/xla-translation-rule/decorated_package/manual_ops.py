"""A rule wrapped by a decorator of the package that reads the rule's arguments, and one
by a decorator this package does not define: neither is looked through."""
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

from .decorators import rule_traced
from .missing import rule_elsewhere

shift_p = Primitive("shift")


@rule_traced
def _shift_cpu(c, x, *, n):
    shape = xla_client.Shape.array_shape(np.dtype(np.float32), (n,), (0,))
    return xla_client.ops.CustomCallWithLayout(
        c, b"shift_f32", operands=(x,), shape_with_layout=shape, operand_shapes_with_layout=(shape,))


@rule_elsewhere
def _shift_gpu(c, x, *, n):
    shape = xla_client.Shape.array_shape(np.dtype(np.float32), (n,), (0,))
    return xla_client.ops.CustomCallWithLayout(
        c, b"shift_f32_gpu", operands=(x,), shape_with_layout=shape, operand_shapes_with_layout=(shape,))


xla.backend_specific_translations["cpu"][shift_p] = _shift_cpu
xla.backend_specific_translations["gpu"][shift_p] = _shift_gpu
