"""CPU translation rules: the kernels are registered by fastkern.primitives."""

import numpy as np
import jax
from jax import core
from jax.interpreters import mlir


def _ccmigrate_target_name(name):
    """Custom-call target names may be bytes in XlaBuilder code; MLIR wants str (added by ccmigrate)."""
    return name.decode() if isinstance(name, bytes) else name


def encode(target, ctx, x, *, factor):
    shape = ctx.avals_in[0]
    dtype = shape.dtype
    dims = shape.shape
    layout = tuple(range(len(dims) - 1, -1, -1))
    return jax.ffi.ffi_lowering(
        _ccmigrate_target_name(target),
        api_version=1,
        backend_config=b"scale-cpu",
        operand_layouts=(
            (),
            layout,
        ),
        result_layouts=[layout],
    )(ctx.replace(avals_in=[core.ShapedArray(np.shape(np.float32(factor)), np.asarray(np.float32(factor)).dtype), ctx.avals_in[0]]), mlir.ir_constant(np.asarray(np.float32(factor))), x)

