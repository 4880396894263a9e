"""Triton bridge (jax-triton style): two custom calls in one rule, operands from a
variable, layouts derived from ctx.avals_in/avals_out, a typed-FFI dict config on one
path and a compressed serialised kernel on the other."""
import zlib

import numpy as np
from jax.interpreters import mlir
from jax.interpreters.mlir import ir
import jax


def avals_to_layouts(avals):
    return [list(reversed(range(len(aval.shape)))) for aval in avals]


def triton_kernel_call_lowering(ctx, *array_args, name, grid, use_xla_triton, input_output_aliases):
    out_types = [mlir.aval_to_ir_type(ctx.module_context, aval) for aval in ctx.avals_out]
    in_nodes = [*array_args]
    if use_xla_triton:
        backend_config = dict(
            name=ir.StringAttr.get(name),
            grid_x=mlir.i32_attr(grid[0]),
            grid_y=mlir.i32_attr(grid[1]),
        )
        return jax.ffi.ffi_lowering(
            "__gpu$xla.gpu.triton",
            result_types=out_types,
            backend_config=backend_config,
            api_version=4,
            operand_layouts=avals_to_layouts(ctx.avals_in),
            result_layouts=avals_to_layouts(ctx.avals_out),
            operand_output_aliases=dict(input_output_aliases),
        )(ctx, *in_nodes)

    kernel_proto = np.asarray(grid, dtype=np.int32).tobytes() + name.encode()
    return jax.ffi.ffi_lowering(
        "triton_kernel_call",
        api_version=2,
        result_types=[*map(mlir.aval_to_ir_type, ctx.avals_out)],
        backend_config=zlib.compress(kernel_proto),
        operand_layouts=avals_to_layouts(ctx.avals_in),
        result_layouts=avals_to_layouts(ctx.avals_out),
        operand_output_aliases=dict(input_output_aliases),
    )(ctx, *in_nodes)
