import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

x_shape = xla_client.Shape.array_shape
prod_p = Primitive("prod")


def _prod_translation(c, x):
    return xla_client.ops.CustomCallWithLayout(
        c, b"cpu_prod", operands=(x,), shape_with_layout=x_shape(np.dtype(np.float32), (4,), (0,)),
        operand_shapes_with_layout=(x_shape(np.dtype(np.float32), (4,), (0,)),))


xla.backend_specific_translations["cpu"][prod_p] = _prod_translation


def compat_entry():
    prod_p.def_abstract_eval(lambda x: x)
    return prod_p.bind, (np.ones(4, np.float32),)
