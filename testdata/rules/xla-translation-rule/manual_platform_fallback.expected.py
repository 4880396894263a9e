# ccmigrate-args: --annotate
"""A rule that branches on the translation context's platform and calls an XLA
computation on CPU: no faithful automatic rewrite, so it is reported with guidance."""
import struct

from jax.interpreters import xla
# TODO(ccmigrate): [xla-translation-rule] import of `jax.lib.xla_client` (deleted from jax) kept for the 3 manual site(s) that use it, annotated with TODO(ccmigrate): it fails at import time until they are migrated
from jax.lib import xla_client

from ._fallback import gather_scatter_add_p, fallback_computation


def _gather_scatter_translation(ctx, avals_in, avals_out, a, indices):
    if ctx.platform == "cpu":
        # TODO(ccmigrate): [xla-translation-rule] `xla_client.ops.Call` builds XLA ops for the XlaBuilder, which jax removed (xla_client.ops in 0.6.0, jax.lib.xla_client in 0.9.0): in an MLIR lowering rule, build the matching StableHLO op (`jax.extend.mlir.dialects.stablehlo`, e.g. hlo.reshape / hlo.transpose) or lower a jax.numpy/lax function with `mlir.lower_fun`
        res = xla_client.ops.Call(ctx.builder, fallback_computation, [a, indices])
        # TODO(ccmigrate): [xla-translation-rule] `xla_client.ops.GetTupleElement` builds XLA ops for the XlaBuilder, which jax removed (xla_client.ops in 0.6.0, jax.lib.xla_client in 0.9.0): in an MLIR lowering rule, build the matching StableHLO op (`jax.extend.mlir.dialects.stablehlo`, e.g. hlo.reshape / hlo.transpose) or lower a jax.numpy/lax function with `mlir.lower_fun`
        return [xla_client.ops.GetTupleElement(res, 0)]
    # TODO(ccmigrate): [xla-translation-rule] xla_client.ops custom call (removed in jax 0.6.0) not rewritten (it reads `ctx.platform` of the translation context): rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning `jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` with `ctx.replace(avals_in=...)` listing one aval per operand
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


# TODO(ccmigrate): [xla-translation-rule] translation rule `_gather_scatter_translation` cannot be rewritten automatically (it reads `ctx.platform` of the translation context): rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning `jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` with `ctx.replace(avals_in=...)` listing one aval per operand
xla.register_translation(gather_scatter_add_p, _gather_scatter_translation)
