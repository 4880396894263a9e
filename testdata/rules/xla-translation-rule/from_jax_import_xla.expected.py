import numpy as np
from jax.extend.core import Primitive
import jax
from jax.interpreters import mlir

solve_p = Primitive("solve")


def _solve_translation(ctx, x):
    s = ctx.avals_in[0]
    shape = (0,)
    return jax.ffi.ffi_lowering(
        "solve_f32",
        api_version=1,
        operand_layouts=(shape,),
        result_layouts=[shape],
    )(ctx, x)


mlir.register_lowering(solve_p, _solve_translation, platform="cpu")
