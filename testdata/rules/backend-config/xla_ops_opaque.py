# ccmigrate-args: --select backend-config,xla-translation-rule --unsafe-fixes
"""The opaque of an XlaBuilder custom call, reached through a module alias, is checked in the
same run that turns it into a backend_config; --unsafe-fixes wraps it once."""
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

from . import gpu_ops

xops = xla_client.ops
scale_p = Primitive("scale")


def _scale_translation(c, x, *, n):
    shape = c.get_shape(x)
    layout = xla_client.Shape.array_shape(shape.element_type(), shape.dimensions(), (0,))
    opaque = gpu_ops.scale_config(n)
    return xops.CustomCallWithLayout(
        c, b"scale_f32", operands=(x,), shape_with_layout=layout,
        operand_shapes_with_layout=(layout,), opaque=opaque)


xla.backend_specific_translations["gpu"][scale_p] = _scale_translation
