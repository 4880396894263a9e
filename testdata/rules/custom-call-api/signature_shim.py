"""Spline-evaluation bindings (2023 style): a module-level shim papers over the jaxlib
releases whose custom_call took ``out_types`` instead of ``result_types``; the lowering
rule is registered as ``partial(spline_lowering, "cpu")`` and deletes the context it
never needed."""
import numpy as np
from jax.interpreters.mlir import ir
from jaxlib.hlo_helpers import custom_call as _custom_call
from jaxlib.hlo_helpers import hlo_const


# jaxlib <= 0.4.14 spelt the result types out_types=
def custom_call(*args, **kwargs):
    try:
        return _custom_call(*args, **kwargs).results
    except TypeError:
        kwargs["out_types"] = kwargs.pop("result_types")
        return (_custom_call(*args, **kwargs),)


def row_major(*shapes):
    return [range(len(shape) - 1, -1, -1) for shape in shapes]


def spline_lowering(platform, ctx, values, *knots, degree, make_descriptor):
    del ctx

    values_type = ir.RankedTensorType(values.type)
    knots_shapes = [ir.RankedTensorType(k.type).shape for k in knots]
    out_shape = tuple(values_type.shape)
    name = f"spline{len(knots)}d_{platform}".encode("ascii")
    descriptor = make_descriptor(degree, *out_shape)

    if platform == "cpu":
        packed = hlo_const(np.frombuffer(descriptor, dtype=np.uint8))
        return custom_call(
            name,
            result_types=[ir.RankedTensorType.get(out_shape, values_type.element_type)],
            # the kernel reads its parameters from the first operand
            operands=[packed, values, *knots[::-1]],
            operand_layouts=row_major((len(descriptor),), out_shape, *knots_shapes[::-1]),
            result_layouts=row_major(out_shape),
        )
    return custom_call(
        name,
        result_types=[ir.RankedTensorType.get(out_shape, values_type.element_type)],
        operands=[values, *knots[::-1]],
        backend_config=descriptor,
        operand_layouts=row_major(out_shape, *knots_shapes[::-1]),
        result_layouts=row_major(out_shape),
    )
