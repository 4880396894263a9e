"""A random-number kernel with no operands: everything it needs (length, seed) is in the
opaque descriptor, so the builder rule passes empty operand and layout tuples, written as
``tuple()``; the parameters reach the rule as keywords of the bind."""
from functools import partial
import struct

import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax

uniform_p = Primitive("uniform")


def uniform(length, seed):
    return uniform_p.bind(length=length, seed=seed)


def _uniform_abstract(*, length, seed):
    return ShapedArray(shape=(length,), dtype=np.float32)


def _uniform_translation(ctx, *, length, seed, platform="cpu"):
    opaque = struct.pack("<qq", length, seed)
    return jax.ffi.ffi_lowering(
        "uniform_sample",
        api_version=1,
        backend_config=opaque,
        operand_layouts=tuple(),
        result_layouts=[(0,)],
    )(ctx)


uniform_p.def_abstract_eval(_uniform_abstract)
mlir.register_lowering(uniform_p, partial(_uniform_translation, platform="cpu"), platform="cpu")


def compat_entry():
    return partial(uniform, 8, 3), ()
