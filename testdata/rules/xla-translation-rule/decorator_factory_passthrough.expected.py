"""Rules of a physics-engine binding, each wrapped by the module's own tracing decorators:
a factory `@trace(label)` and a plain `@timed`, whose wrappers hand the arguments and the
result through (kept on the lowering rules); `@first_only` changes the result: manual."""
import functools
import time

import numpy as np
from jax import core
from jax.interpreters import mlir, xla
from jax.lib import xla_client
import jax

DEPTH = [0]


def trace(name):
    """Trace arguments and results, as jax's primitives tutorial did."""

    def trace_func(func):
        def pp(v):
            if isinstance(v, tuple):
                return "({})".format(pp_values(v))
            return str(v)

        def pp_values(args):
            return ", ".join([pp(arg) for arg in args])

        @functools.wraps(func)
        def func_wrapper(*args):
            print("  " * DEPTH[0] + "call {}({})".format(name, pp_values(args)))
            DEPTH[0] += 1
            res = func(*args)
            DEPTH[0] -= 1
            print("  " * DEPTH[0] + "|<- {} = {}".format(name, pp(res)))
            return res
        return func_wrapper
    return trace_func


def timed(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        out = func(*args, **kwargs)
        print(func.__name__, time.perf_counter() - start)
        return out
    return wrapper


def first_only(func):
    @functools.wraps(func)
    def wrapper(*args):
        res = func(*args)
        return res[0]
    return wrapper


def _layout(dims):
    return tuple(range(len(dims) - 1, -1, -1))


@trace("step_translation")
def _step_translation(ctx, qpos):
    dims = ctx.avals_in[0].shape
    shape = _layout(dims)
    return jax.ffi.ffi_lowering(
        "mj_step",
        api_version=1,
        operand_layouts=(shape,),
        result_layouts=[shape],
    )(ctx, qpos)


@timed
def _forward_translation(ctx, qpos):
    dims = ctx.avals_in[0].shape
    shape = _layout(dims)
    return jax.ffi.ffi_lowering(
        "mj_forward",
        api_version=1,
        operand_layouts=(shape,),
        result_layouts=[shape],
    )(ctx, qpos)


@first_only
def _inverse_translation(c, qpos):
    dims = c.get_shape(qpos).dimensions()
    shape = xla_client.Shape.array_shape(np.dtype(np.float64), dims, _layout(dims))
    return xla_client.ops.CustomCallWithLayout(c, b"mj_inverse", operands=(qpos,),
                                               operand_shapes_with_layout=(shape,), shape_with_layout=shape)


step_p = core.Primitive("mj_step")
forward_p = core.Primitive("mj_forward")
inverse_p = core.Primitive("mj_inverse")
mlir.register_lowering(step_p, _step_translation, platform="cpu")
mlir.register_lowering(forward_p, _forward_translation, platform="cpu")
xla.backend_specific_translations["cpu"][inverse_p] = _inverse_translation
