"""A package from the jax 0.3/0.4 transition registers both an MLIR lowering and the
older translation rule for the same primitive; jax used the MLIR one, so the
translation registration goes and its rule is rewritten where it stands."""
import numpy as np
from jax.interpreters import mlir

from ._ops import lfilter_lowering, lfilter_p
import jax


def _lfilter_translation(ctx, b, a, x):
    shape = (0,)
    return jax.ffi.ffi_lowering(
        "lfilter",
        api_version=1,
        operand_layouts=(shape, shape, shape),
        result_layouts=[shape],
    )(ctx, b, a, x)


mlir.register_lowering(lfilter_p, lfilter_lowering, platform="cpu")
