"""A sparse-solve binding in the style of early pybind11 extensions: a builder rule
passing the system size as a constant operand, registered per platform."""
from functools import partial

import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax

solve_p = Primitive("solve")


def solve(a, b):
    return solve_p.bind(a, b)


def _solve_abstract_eval(a, b):
    return ShapedArray(b.shape, b.dtype)


solve_p.def_abstract_eval(_solve_abstract_eval)


def _solve_translation(ctx, a, b, *, platform="cpu"):
    vector = (0,)
    matrix = (0, 1)
    return jax.ffi.ffi_lowering(
        "solve_f32",
        api_version=1,
        backend_config=b"\x00lu\xff",
        operand_layouts=(
            (),
            matrix,
            vector,
        ),
        result_layouts=[vector],
    )(ctx.replace(avals_in=[ShapedArray(np.shape(np.int64(4)), np.asarray(np.int64(4)).dtype), ctx.avals_in[0], ctx.avals_in[1]]), mlir.ir_constant(np.asarray(np.int64(4))), a, b)


mlir.register_lowering(solve_p, partial(_solve_translation, platform="cpu"), platform="cpu")


def compat_entry():
    return solve, (np.eye(4, dtype=np.float32), np.ones(4, np.float32))
