"""A GPU-style kernel registered with xla.register_translation: the rule reads the
builder from the translation context, packs a descriptor with struct and asks for the
status-returning ABI."""
import struct

import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax

scatter_add_p = Primitive("scatter_add")


def scatter_add(a, indices):
    return scatter_add_p.bind(a, indices, rows=4)


scatter_add_p.def_abstract_eval(lambda a, indices, *, rows: core.ShapedArray((rows, a.shape[1]), a.dtype))


def _layout(aval):
    return tuple(range(len(aval.shape) - 1, -1, -1))


def _scatter_add_translation(ctx, a, indices, *, rows):
    a_aval, indices_aval = ctx.avals_in
    (out_aval,) = ctx.avals_out
    out_shape = _layout(out_aval)
    return jax.ffi.ffi_lowering(
        "float_gather_scatter",
        api_version=2,
        backend_config=struct.pack("II", indices_aval.shape[0], rows),
        operand_layouts=[
                _layout(a_aval),
                _layout(indices_aval),
            ],
        result_layouts=[out_shape],
    )(ctx, a, indices)


mlir.register_lowering(scatter_add_p, _scatter_add_translation, platform="cpu")


def compat_entry():
    return scatter_add, (np.ones((6, 3), np.float32), np.zeros((6,), np.int32))
