"""A quadrotor model's lowering (Hs293Go style): the arguments every call shares are bound
once with ``functools.partial(hlo_helpers.custom_call, name, result_types=...,
result_layouts=...)``, and each platform's call adds its operands and layouts. The
partial now binds ``build_ffi_lowering_function`` (with the builder's default api_version
2), and each call hands the lowering function it returns ctx and the operands: the CPU
call's extra size operand pads ``ctx.avals_in``. A call that passes nothing but its operands
leaves an empty argument list."""
import functools

import numpy as np
from jax.interpreters import mlir
import jax


def default_layouts(*shapes):
    return [range(len(shape) - 1, -1, -1) for shape in shapes]


def _dynamics_lowering(ctx, x, u, *, platform="cpu"):
    dtype = mlir.ir.RankedTensorType(x.type)
    dims = dtype.shape
    layout = tuple(range(len(dims) - 1, -1, -1))
    size = np.int64(dims[0] if len(dims) > 1 else 1)
    custom_call = functools.partial(
        jax.ffi.build_ffi_lowering_function, f"{platform}_dynamics_f32", api_version=2, result_types=[dtype], result_layouts=[layout]
    )
    if platform == "cpu":
        return custom_call(
            operand_layouts=[()] + default_layouts(x.type.shape, u.type.shape),
        )(ctx.replace(avals_in=[*ctx.avals_in, None]), mlir.ir_constant(size), x, u).results
    return custom_call(
        operand_layouts=default_layouts(x.type.shape, u.type.shape),
        backend_config=b"\x01\x02",
    )(ctx, x, u).results


def _norm_lowering(ctx, x):
    dtype = mlir.ir.RankedTensorType(x.type)
    norm = functools.partial(
        jax.ffi.build_ffi_lowering_function, "cpu_norm_f32", api_version=2, result_types=[dtype], operand_layouts=[(0,)], result_layouts=[(0,)]
    )
    return norm()(ctx, x).results
