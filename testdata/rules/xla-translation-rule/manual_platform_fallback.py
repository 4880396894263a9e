# ccmigrate-args: --annotate
"""A rule that branches on the translation context's platform and calls an XLA
computation on CPU: no faithful automatic rewrite, so it is reported with guidance."""
import struct

from jax.interpreters import xla
from jax.lib import xla_client

from ._fallback import gather_scatter_add_p, fallback_computation


def _gather_scatter_translation(ctx, avals_in, avals_out, a, indices):
    if ctx.platform == "cpu":
        res = xla_client.ops.Call(ctx.builder, fallback_computation, [a, indices])
        return [xla_client.ops.GetTupleElement(res, 0)]
    return [
        xla_client.ops.CustomCallWithLayout(
            ctx.builder,
            b"float_gather_scatter",
            operands=[a, indices],
            shape_with_layout=xla_client.Shape.array_shape(avals_out[0].dtype, avals_out[0].shape, (1, 0)),
            operand_shapes_with_layout=[
                xla_client.Shape.array_shape(avals_in[0].dtype, avals_in[0].shape, (1, 0)),
                xla_client.Shape.array_shape(avals_in[1].dtype, avals_in[1].shape, (0,)),
            ],
            opaque=struct.pack("I", avals_in[1].shape[0]),
        )
    ]


xla.register_translation(gather_scatter_add_p, _gather_scatter_translation)
