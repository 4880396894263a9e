"""The rms_norm GPU tutorial as written: `.results` of a two-result call assigned to a name
that the rule only returns, so jax checks the count against the primitive's outputs."""
from functools import reduce

from jax.interpreters.mlir import ir
from jaxlib.hlo_helpers import custom_call


def default_layouts(*shapes):
    return [range(len(shape) - 1, -1, -1) for shape in shapes]


def _fwd_lowering(ctx, x, weight, eps):
    x_type = ir.RankedTensorType(x.type)
    x_shape = x_type.shape
    w_type = ir.RankedTensorType(weight.type)
    w_shape = w_type.shape
    n2 = reduce(lambda a, b: a * b, w_shape)
    n1 = reduce(lambda a, b: a * b, x_shape) // n2
    out = custom_call(
        b"rms_forward_affine_mixed_dtype",
        result_types=[
            ir.RankedTensorType.get(x_shape, w_type.element_type),
            ir.RankedTensorType.get((n1,), x_type.element_type),
        ],
        operands=[x, weight],
        backend_config=b"",
        operand_layouts=default_layouts(x_shape, w_shape),
        result_layouts=default_layouts(x_shape, (n1,)),
    ).results
    return out
