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
        # TODO(ccmigrate): [xla-translation-rule] `xla_client.Shape.array_shape` builds XLA shapes for the XlaBuilder, which jax removed (xla_client.ops in 0.6.0, jax.lib.xla_client in 0.9.0): use jax.ShapeDtypeStruct / layouts as minor_to_major tuples, or an MLIR lowering rule
        operand_shapes = [
            xla_client.Shape.array_shape(a.dtype, a.shape, tuple(range(len(a.shape) - 1, -1, -1))) for a in avals_in
        ]
        # TODO(ccmigrate): [xla-translation-rule] `xla_client.Shape.array_shape` builds XLA shapes for the XlaBuilder, which jax removed (xla_client.ops in 0.6.0, jax.lib.xla_client in 0.9.0): use jax.ShapeDtypeStruct / layouts as minor_to_major tuples, or an MLIR lowering rule
        out_shape = xla_client.Shape.array_shape(avals_out[0].dtype, avals_out[0].shape, (1, 0))
        if platform == "cpu":
            # TODO(ccmigrate): [xla-translation-rule] `xla_client.ops.ConstantLiteral` builds XLA ops for the XlaBuilder, which jax removed (xla_client.ops in 0.6.0, jax.lib.xla_client in 0.9.0): in an MLIR lowering rule, use `mlir.ir_constant(np.asarray(value))`
            dims = xla_client.ops.ConstantLiteral(ctx.builder, np.asarray((4, 2), dtype=np.uint64))
            # TODO(ccmigrate): [xla-translation-rule] `xla_client.Shape.array_shape` builds XLA shapes for the XlaBuilder, which jax removed (xla_client.ops in 0.6.0, jax.lib.xla_client in 0.9.0): use jax.ShapeDtypeStruct / layouts as minor_to_major tuples, or an MLIR lowering rule
            dims_shape = xla_client.Shape.array_shape(np.dtype(np.uint64), (2,), (0,))
            # TODO(ccmigrate): [xla-translation-rule] xla_client.ops custom call (removed in jax 0.6.0) not rewritten (`operand_shapes`, a list of XLA shapes, is used other than as a custom call's whole operand_shapes_with_layout: as one element of it the call raised TypeError in XlaBuilder, so it never lowered and its intended layouts are unknown): rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning `jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` with `ctx.replace(avals_in=...)` listing one aval per operand
            op_ = [xla_client.ops.CustomCallWithLayout(
                builder=ctx.builder,
                call_target_name=op_name.encode(),
                operands=(dims, spikes, grads),
                shape_with_layout=out_shape,
                operand_shapes_with_layout=(dims_shape, operand_shapes),
            )]
        else:
            # TODO(ccmigrate): [xla-translation-rule] xla_client.ops custom call (removed in jax 0.6.0) not rewritten (`operand_shapes`, a list of XLA shapes, is used other than as a custom call's whole operand_shapes_with_layout: as one element of it the call raised TypeError in XlaBuilder, so it never lowered and its intended layouts are unknown): rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning `jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` with `ctx.replace(avals_in=...)` listing one aval per operand
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
    # TODO(ccmigrate): [xla-translation-rule] translation rule `_grad_translation` cannot be rewritten automatically (`operand_shapes`, a list of XLA shapes, is used other than as a custom call's whole operand_shapes_with_layout: as one element of it the call raised TypeError in XlaBuilder, so it never lowered and its intended layouts are unknown): rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning `jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` with `ctx.replace(avals_in=...)` listing one aval per operand
    xla.register_translation(prim, _grad_translation, platform=platform)
    return prim
