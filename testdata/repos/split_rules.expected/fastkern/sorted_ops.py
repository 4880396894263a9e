"""Not imported by the package: it still needs the XlaBuilder."""

from jax.extend.core import Primitive
from jax.interpreters import xla

from .backends.sorting import encode_sorted

sorted_p = Primitive("fastkern_sorted")
sorted_p.def_abstract_eval(lambda x: x)

# TODO(ccmigrate): [xla-translation-rule] translation rules were removed in jax 0.4.29; the registered rule `encode_sorted` is defined in `backends/sorting.py`, which must convert it with this registration, but `backends/sorting.py` cannot take its part (`encode_sorted` cannot be rewritten automatically (it uses xla_client.ops.Sort)), so neither is converted: rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning `jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` with `ctx.replace(avals_in=...)` listing one aval per operand
xla.backend_specific_translations["cpu"][sorted_p] = encode_sorted
