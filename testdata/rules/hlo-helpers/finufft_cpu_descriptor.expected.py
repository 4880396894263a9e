# ccmigrate-args: --select hlo-helpers,custom-call-api,aval-to-ir-type
"""NUFFT CPU lowering (jax-finufft style): the descriptor travels as an extra constant
operand built with hlo_const, imported beside custom_call from the removed module."""
import numpy as np
from jax.interpreters import mlir
import jax


def default_layouts(*shapes):
    return [range(len(shape) - 1, -1, -1) for shape in shapes]


def lowering(ctx, source, *points, output_shape, build_descriptor):
    source_shape = ctx.avals_in[0].shape
    points_shape = tuple(x.shape for x in ctx.avals_in[1:])
    descriptor_bytes = build_descriptor(source_shape)
    descriptor = mlir.ir_constant(np.frombuffer(descriptor_bytes, dtype=np.uint8))
    return jax.ffi.ffi_lowering(
        "nufft2d1",
        api_version=2,
        result_types=[mlir.aval_to_ir_type(ctx.module_context, aval) for aval in ctx.avals_out],
        # Reverse points because backend uses Fortran order
        operand_layouts=default_layouts([0], source_shape, *points_shape[::-1]),
        result_layouts=default_layouts(output_shape),
    )(ctx.replace(avals_in=[*ctx.avals_in, None]), descriptor, source, *points[::-1])
