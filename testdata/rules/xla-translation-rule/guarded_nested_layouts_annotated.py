# ccmigrate-args: --annotate
"""factory_nested_layouts with its imports guarded by try/except ImportError fallbacks: the
TODO lines that --annotate writes in the rule must not change how the next run resolves the
guarded client module (they once read like a for-loop binding it), so the rule is reported
for the same reason again and the output is a fixed point."""
import struct

import numpy as np
try:
    from jax.interpreters import xla
except ImportError:
    xla = None
try:
    from jax._src.lib import xla_client
except ImportError:
    xla_client = None
try:
    from jax.extend.core import Primitive
except ImportError:
    Primitive = None


def make_grad(op_name, platform):
    def _grad_translation(ctx, avals_in, avals_out, spikes, grads):
        operand_shapes = [
            xla_client.Shape.array_shape(a.dtype, a.shape, tuple(range(len(a.shape) - 1, -1, -1))) for a in avals_in
        ]
        out_shape = xla_client.Shape.array_shape(avals_out[0].dtype, avals_out[0].shape, (1, 0))
        if platform == "cpu":
            dims = xla_client.ops.ConstantLiteral(ctx.builder, np.asarray((4, 2), dtype=np.uint64))
            dims_shape = xla_client.Shape.array_shape(np.dtype(np.uint64), (2,), (0,))
            op_ = [xla_client.ops.CustomCallWithLayout(
                builder=ctx.builder,
                call_target_name=op_name.encode(),
                operands=(dims, spikes, grads),
                shape_with_layout=out_shape,
                operand_shapes_with_layout=(dims_shape, operand_shapes),
            )]
        else:
            op_ = [xla_client.ops.CustomCallWithLayout(
                builder=ctx.builder,
                call_target_name=op_name.encode(),
                operands=(spikes, grads),
                shape_with_layout=out_shape,
                operand_shapes_with_layout=operand_shapes,
                opaque=struct.pack("II", 4, 2),
            )]
        return op_

    prim = Primitive(op_name)
    xla.register_translation(prim, _grad_translation, platform=platform)
    return prim
