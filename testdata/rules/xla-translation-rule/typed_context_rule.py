"""A typed translation rule, as the clinical-model kernels wrote theirs: evaluated at
definition, the XlaBuilder-era annotations would fail on import once the rule converts."""
from typing import Sequence

import jax
from jax import core
from jax.interpreters import xla
from jax.lib import xla_client


def gather_translation(
    ctx: xla.TranslationContext,
    avals_in: Sequence[core.AbstractValue],
    avals_out: Sequence[core.AbstractValue],
    values: xla.XlaOp,
    indices: xla.XlaOp,
) -> Sequence[xla.XlaOp]:
    (values_aval, indices_aval) = avals_in
    (out_aval,) = avals_out
    return [
        xla_client.ops.CustomCallWithLayout(
            ctx.builder,
            b"gather_rows",
            operands=[values, indices],
            shape_with_layout=xla_client.Shape.array_shape(out_aval.dtype, out_aval.shape, (1, 0)),
            operand_shapes_with_layout=[
                xla_client.Shape.array_shape(values_aval.dtype, values_aval.shape, (1, 0)),
                xla_client.Shape.array_shape(indices_aval.dtype, indices_aval.shape, (0,)),
            ],
        )
    ]


def register(primitive):
    xla.register_translation(primitive, gather_translation, platform="cuda")
