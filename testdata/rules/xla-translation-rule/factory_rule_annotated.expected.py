# ccmigrate-args: --annotate --select removed-jax-api,xla-translation-rule
"""A translation rule made by a factory (not rewritten: reported manual) under --annotate:
the annotations name the translation rule in brackets, and they and the flags above are
comment lines, never uses of the imported module (the next run would move it then)."""
import numpy as np
# TODO(ccmigrate): [xla-translation-rule] import of `jax.xla` (deleted from jax) kept for the 1 manual site(s) that use it, annotated with TODO(ccmigrate): it fails at import time until they are migrated
from jax import xla
from jax.extend.core import Primitive
from jaxlib import xla_client

solve_p = Primitive("solve")


def _make_solve_translation():
    def _solve_translation(c, x):
        s = c.get_shape(x)
        # TODO(ccmigrate): [xla-translation-rule] `xla_client.Shape.array_shape` builds XLA shapes for the XlaBuilder, which jax removed (xla_client.ops in 0.6.0, jax.lib.xla_client in 0.9.0): use jax.ShapeDtypeStruct / layouts as minor_to_major tuples, or an MLIR lowering rule
        shape = xla_client.Shape.array_shape(np.dtype(s.element_type()), s.dimensions(), (0,))
        # TODO(ccmigrate): [xla-translation-rule] xla_client.ops custom call (removed in jax 0.6.0) not rewritten (`_make_solve_translation`, the function it is in, is not registered as a translation rule in this module: migrate it with the module that registers it): rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning `jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` with `ctx.replace(avals_in=...)` listing one aval per operand
        return xla_client.ops.CustomCallWithLayout(
            c, b"solve_f32", operands=(x,), shape_with_layout=shape,
            operand_shapes_with_layout=(shape,))
    return _solve_translation


_solve_translation = _make_solve_translation()


# TODO(ccmigrate): [xla-translation-rule] translation rules were removed in jax 0.4.29; `_solve_translation` is not defined with `def` in this module (imported or assigned), so it cannot be rewritten here: rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning `jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` with `ctx.replace(avals_in=...)` listing one aval per operand
xla.backend_specific_translations["cpu"][solve_p] = _solve_translation
