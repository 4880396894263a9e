"""A rule that sorts before its custom call: the XlaBuilder op has no one-for-one
MLIR counterpart here, so it stays, and so does its registration in another module."""

# TODO(ccmigrate): [xla-translation-rule] import of `jax.lib.xla_client` (deleted from jax) kept for the 2 manual site(s) that use it, annotated with TODO(ccmigrate): it fails at import time until they are migrated
from jax.lib import xla_client


def encode_sorted(c, x):
    # TODO(ccmigrate): [xla-translation-rule] `xla_client.ops.Sort` builds XLA ops for the XlaBuilder, which jax removed (xla_client.ops in 0.6.0, jax.lib.xla_client in 0.9.0): in an MLIR lowering rule, build the matching StableHLO op (`jax.extend.mlir.dialects.stablehlo`, e.g. hlo.reshape / hlo.transpose) or lower a jax.numpy/lax function with `mlir.lower_fun`
    ordered = xla_client.ops.Sort(c, [x])
    # TODO(ccmigrate): [xla-translation-rule] xla_client.ops custom call (removed in jax 0.6.0) not rewritten (it uses xla_client.ops.Sort): rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning `jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` with `ctx.replace(avals_in=...)` listing one aval per operand
    return xla_client.ops.CustomCall(c, b"fastkern_sorted", operands=(ordered,), shape=c.get_shape(x))
