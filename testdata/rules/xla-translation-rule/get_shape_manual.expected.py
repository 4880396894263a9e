# ccmigrate-args: --annotate
"""The classic tutorial shape reads operand shapes from the builder (c.get_shape); there
is no builder in an MLIR lowering rule, so the rule is reported with what to write."""
from functools import partial

import numpy as np
from jax.interpreters import xla
from jax.lib import xla_client

from . import cpu_ops, kepler_p

xops = xla_client.ops


def _kepler_translation(c, mean_anom, ecc, *, platform="cpu"):
    shape = c.get_shape(mean_anom)
    dims = shape.dimensions()
    size = np.prod(dims).astype(np.int64)
    layout = tuple(range(len(dims) - 1, -1, -1))
    shape = xla_client.Shape.array_shape(np.dtype(np.float64), dims, layout)
    # TODO(ccmigrate): [xla-translation-rule] xla_client.ops custom call (removed in jax 0.6.0) not rewritten (it uses the XlaBuilder beyond CustomCall (`c.get_shape(mean_anom)`)): rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning `jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` with `ctx.replace(avals_in=...)` listing one aval per operand
    return xops.CustomCallWithLayout(
        c,
        platform.encode() + b"_kepler_f64",
        operands=(xops.ConstantLiteral(c, size), mean_anom, ecc),
        shape_with_layout=xla_client.Shape.tuple_shape((shape, shape)),
        operand_shapes_with_layout=(xla_client.Shape.array_shape(np.dtype(np.int64), (), ()), shape, shape),
    )


# TODO(ccmigrate): [xla-translation-rule] translation rule `_kepler_translation` cannot be rewritten automatically (it uses the XlaBuilder beyond CustomCall (`c.get_shape(mean_anom)`)): rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning `jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` with `ctx.replace(avals_in=...)` listing one aval per operand
xla.backend_specific_translations["cpu"][kepler_p] = partial(_kepler_translation, platform="cpu")
