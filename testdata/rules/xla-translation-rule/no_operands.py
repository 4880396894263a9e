"""A random-number kernel with no operands: everything it needs (length, seed) is in the
opaque descriptor, so the builder rule passes empty operand and layout tuples, written as
``tuple()``; the parameters reach the rule as keywords of the bind."""
from functools import partial
import struct

import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

x_ops = xla_client.ops
x_shape = xla_client.Shape.array_shape

uniform_p = Primitive("uniform")


def uniform(length, seed):
    return uniform_p.bind(length=length, seed=seed)


def _uniform_abstract(*, length, seed):
    return ShapedArray(shape=(length,), dtype=np.float32)


def _uniform_translation(c, *, length, seed, platform="cpu"):
    opaque = struct.pack("<qq", length, seed)
    return x_ops.CustomCallWithLayout(
        c,
        b"uniform_sample",
        operands=tuple(),
        operand_shapes_with_layout=tuple(),
        shape_with_layout=x_shape(np.dtype(np.float32), (length,), (0,)),
        opaque=opaque,
    )


uniform_p.def_abstract_eval(_uniform_abstract)
xla.backend_specific_translations["cpu"][uniform_p] = partial(_uniform_translation, platform="cpu")


def compat_entry():
    return partial(uniform, 8, 3), ()
