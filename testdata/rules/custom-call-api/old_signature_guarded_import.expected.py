"""Spherical-harmonics CUDA op: jaxlib <= 0.4.14 `out_types` signature, imported
through a try/except that only chose between two removed helper modules."""
import jax
from jax.interpreters import mlir
from jax.interpreters.mlir import ir


def default_layouts(*shapes):
    return [range(len(shape) - 1, -1, -1) for shape in shapes]


def _sh_encoding_lowering_cuda(ctx: mlir.LoweringRuleContext, coord: ir.Value, hint: ir.Value):
    coord_type = ir.RankedTensorType(coord.type)
    n, _ = coord_type.shape
    degree, = ir.RankedTensorType(hint.type).shape
    result_shape = (n, degree * degree)
    opaque = b"\x01\x00\x00\x00"
    return jax.ffi.ffi_lowering(
        "spherical_harmonics_encoding_cuda_f32",
        api_version=2,
        result_types=[
            ir.RankedTensorType.get(result_shape, coord_type.element_type),
        ],
        backend_config=opaque,
        operand_layouts=default_layouts(coord_type.shape),
        result_layouts=default_layouts(result_shape),
    )(ctx, coord)
