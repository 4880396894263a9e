"""The classic extending-jax tutorial shape: a builder rule that reads the operands'
shapes from the builder, builds a bytes target name per platform and passes the element
count as a constant operand."""
from functools import partial

import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax


def _ccmigrate_target_name(name):
    """Custom-call target names may be bytes in XlaBuilder code; MLIR wants str (added by ccmigrate)."""
    return name.decode() if isinstance(name, bytes) else name


kepler_p = Primitive("kepler")
kepler_p.multiple_results = True
kepler_p.def_abstract_eval(lambda m, e: (core.ShapedArray(m.shape, m.dtype), core.ShapedArray(m.shape, m.dtype)))


def kepler(mean_anom, ecc):
    return kepler_p.bind(mean_anom, ecc)


def _kepler_translation(ctx, mean_anom, ecc, *, platform="cpu"):
    shape = ctx.avals_in[0]
    dtype = shape.dtype
    dims = shape.shape
    assert ctx.avals_in[1] == shape
    size = np.prod(dims).astype(np.int64)
    layout = tuple(range(len(dims) - 1, -1, -1))
    shape = layout
    if dtype == np.float32:
        op_name = platform.encode() + b"_kepler_f32"
    else:
        op_name = platform.encode() + b"_kepler_f64"
    return jax.ffi.ffi_lowering(
        _ccmigrate_target_name(op_name),
        api_version=1,
        operand_layouts=((), shape, shape),
        result_layouts=(shape, shape),
    )(ctx.replace(avals_in=[core.ShapedArray(np.shape(size), np.asarray(size).dtype), ctx.avals_in[0], ctx.avals_in[1]]), mlir.ir_constant(np.asarray(size)), mean_anom, ecc)


mlir.register_lowering(kepler_p, partial(_kepler_translation, platform="cpu"), platform="cpu")


def compat_entry():
    return kepler, (np.zeros((3, 2), np.float32), np.full((3, 2), 0.1, np.float32))
