"""Lowering rules that turn down what they have no kernel for, with their own raise.

An automatic probe's float32 arrays are turned down by ``solve``'s rule: that says
nothing about its custom call. ``scaled``'s rule lowers on cpu with the parameter its
public function passes, fails when the primitive is bound bare (``scale`` missing), and
has no GPU kernel at all.
"""
import struct
from functools import partial

import jax
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import mlir

checked_p = Primitive("hostile_turns_down")
checked_p.def_abstract_eval(lambda x: x)


def _checked_lowering(ctx, x):
    if ctx.avals_in[0].dtype != np.float64:
        raise NotImplementedError(f"Unsupported dtype {ctx.avals_in[0].dtype}")
    return jax.ffi.ffi_lowering("dtype_checked_target", api_version=2)(ctx, x)


mlir.register_lowering(checked_p, _checked_lowering)


def solve(x):
    return checked_p.bind(x)


scaled_p = Primitive("hostile_turns_down_scaled")
scaled_p.def_abstract_eval(lambda x, *, scale=None: x)


def _scaled_lowering(ctx, x, *, scale=None, platform="cpu"):
    if platform != "cpu":
        raise NotImplementedError("no GPU kernel")
    return jax.ffi.ffi_lowering("scaled_target", api_version=2, backend_config=struct.pack("f", scale))(ctx, x)


mlir.register_lowering(scaled_p, partial(_scaled_lowering, platform="cpu"), platform="cpu")
mlir.register_lowering(scaled_p, partial(_scaled_lowering, platform="gpu"), platform="cuda")


def scaled(x, scale=2.0):
    return scaled_p.bind(x, scale=scale)
