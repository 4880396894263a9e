"""A factory in the style of per-kernel binding generators: the rule is nested in the
factory, reads the kernel name and the calling convention from the closure, picks the
custom call in an if/elif/else, binds it to a name and returns that name; operands come
from a local tuple (spread after a constant), layouts from a list comprehension."""
import struct
from functools import partial

import numpy as np
from jax.core import ShapedArray
from jax.interpreters import xla
from jax._src.lib import xla_client
from jax.extend.core import Primitive


def make_matmul(op_name, platform, descriptor=False):
    def matmul(spikes, grads):
        return _matmul_p.bind(spikes, grads, num_rows=4)

    def _abstract_eval(spikes, grads, *, num_rows):
        return ShapedArray((num_rows, grads.shape[-1]), grads.dtype)

    def _matmul_translation(ctx, avals_in, avals_out, spikes, grads, *, num_rows):
        spikes_aval, grads_aval = avals_in
        out_aval = avals_out[0]
        num_cols = out_aval.shape[1]
        operands_base = (spikes, grads)
        operand_shapes = [
            xla_client.Shape.array_shape(arr.dtype, arr.shape, tuple(range(len(arr.shape) - 1, -1, -1)))
            for arr in [spikes_aval, grads_aval]
        ]
        out_shape = xla_client.Shape.array_shape(out_aval.dtype, out_aval.shape, tuple(range(len(out_aval.shape) - 1, -1, -1)))

        if not descriptor:
            dims = xla_client.ops.ConstantLiteral(ctx.builder, np.asarray((num_rows, num_cols), dtype=np.uint64))
            shape_dims = xla_client.Shape.array_shape(np.dtype(np.uint64), (2,), (0,))
            op_ = [xla_client.ops.CustomCallWithLayout(
                builder=ctx.builder,
                call_target_name=op_name.encode(),
                operands=(dims, *operands_base),
                shape_with_layout=out_shape,
                operand_shapes_with_layout=(shape_dims, *operand_shapes),
            )]
        elif platform in ("cpu", "gpu"):
            opaque = struct.pack("II", num_rows, num_cols)
            op_ = [xla_client.ops.CustomCallWithLayout(
                builder=ctx.builder,
                call_target_name=op_name.encode(),
                operands=operands_base,
                shape_with_layout=out_shape,
                operand_shapes_with_layout=operand_shapes,
                opaque=opaque,
            )]
        else:
            raise NotImplementedError(f"Unsupported platform {platform}")
        return op_

    _matmul_p = Primitive(op_name)
    _matmul_p.def_abstract_eval(_abstract_eval)
    xla.register_translation(_matmul_p, _matmul_translation, platform=platform)
    return matmul


def compat_entry():
    return make_matmul("spike_matmul_cpu", "cpu"), (np.ones(3, np.int32), np.ones((2, 5), np.float32))


def compat_entry_descriptor():
    return make_matmul("spike_matmul_desc", "cpu", descriptor=True), (np.ones(3, np.int32), np.ones((2, 5), np.float32))
