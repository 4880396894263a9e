"""NUFFT bindings (jax-finufft style): bytes descriptor as backend_config, operands
splatted from the rule's *points, result types built from ctx.avals_out."""
import numpy as np
from jax.interpreters import mlir
from jax.interpreters.mlir import ir
import jax


def default_layouts(*shapes):
    return [range(len(shape) - 1, -1, -1) for shape in shapes]


def lowering(ctx: mlir.LoweringRuleContext, source: ir.Value, *points, output_shape, eps, build_descriptor):
    source_aval = ctx.avals_in[0]
    suffix = "f" if source_aval.dtype == np.complex64 else ""
    ndim = len(points)
    op_name = f"nufft{ndim}d1{suffix}".encode("ascii")
    points_shape = tuple(x.shape for x in ctx.avals_in[1:])
    descriptor_bytes = build_descriptor(eps, source_aval.shape)
    return jax.ffi.ffi_lowering(
        op_name,
        api_version=2,
        result_types=[mlir.aval_to_ir_type(aval) for aval in ctx.avals_out],
        # Reverse points because backend uses Fortran order
        backend_config=descriptor_bytes,
        operand_layouts=default_layouts(source_aval.shape, *points_shape[::-1]),
        result_layouts=default_layouts(output_shape),
    )(ctx, source, *points[::-1])
