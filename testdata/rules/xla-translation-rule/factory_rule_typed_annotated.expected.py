# ccmigrate-args: --annotate --every-rule
"""A rule typed with XlaBuilder/XlaOp, made by a factory (so reported manual) under
--annotate: the kept jaxlib.xla_extension import is annotated without line numbers,
which the annotations above it would shift, so the next run writes the same text.
"""
from typing import Any

import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import xla
# TODO(ccmigrate): [xla-translation-rule] import of `jax.lib.xla_client` (deleted from jax) kept for the 2 manual site(s) that use it, annotated with TODO(ccmigrate): it fails at import time until they are migrated
from jax.lib import xla_client
# TODO(ccmigrate): [removed-jax-api] import of `jaxlib.xla_extension.XlaBuilder` (deleted from jax) stays for uses no rule migrates, at 1 line(s) (type annotations, XlaBuilder objects...): it fails at import time; replace or drop those uses, then the import
from jaxlib.xla_extension import XlaBuilder, XlaOp

sample_p = Primitive("sample")
sample_p.multiple_results = True
sample_p.def_abstract_eval(lambda tex, uv, *, mode: (core.ShapedArray(uv.shape[:-1] + tex.shape[-1:], tex.dtype),))


def _make__sample_translation():
    def _sample_translation(builder: XlaBuilder, tex: XlaOp, uv: XlaOp, *args: Any, mode: int):
        tex_shape = builder.get_shape(tex)
        dims_uv = builder.get_shape(uv).dimensions()
        # TODO(ccmigrate): [xla-translation-rule] `xla_client.Shape.array_shape` builds XLA shapes for the XlaBuilder, which jax removed (xla_client.ops in 0.6.0, jax.lib.xla_client in 0.9.0): use jax.ShapeDtypeStruct / layouts as minor_to_major tuples, or an MLIR lowering rule
        out_shape = xla_client.Shape.array_shape(tex_shape.element_type(), dims_uv[:-1] + tex_shape.dimensions()[-1:], (2, 1, 0))
        operands = (tex, uv)
        # TODO(ccmigrate): [xla-translation-rule] xla_client.ops custom call (removed in jax 0.6.0) not rewritten (`_make__sample_translation`, the function it is in, is not registered as a translation rule in this module: migrate it with the module that registers it): rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning `jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` with `ctx.replace(avals_in=...)` listing one aval per operand
        return xla_client.ops.CustomCallWithLayout(
            builder,
            b"sample_fwd",
            operands=operands,
            operand_shapes_with_layout=tuple([builder.get_shape(x) for x in operands]),
            shape_with_layout=xla_client.Shape.tuple_shape((out_shape,)),
            opaque=np.int32(mode).tobytes(),
        )
    return _sample_translation


_sample_translation = _make__sample_translation()


# TODO(ccmigrate): [xla-translation-rule] translation rules were removed in jax 0.4.29; `_sample_translation` is not defined with `def` in this module (imported or assigned), so it cannot be rewritten here: rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning `jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` with `ctx.replace(avals_in=...)` listing one aval per operand
xla.backend_specific_translations["cpu"][sample_p] = _sample_translation


def _make_compat_entry():
    def compat_entry():
        tex = np.ones((2, 4, 4, 3), np.float32)
        uv = np.zeros((2, 5, 2), np.float32)
        return (lambda t, u: sample_p.bind(t, u, mode=1)), (tex, uv)
    return compat_entry


compat_entry = _make_compat_entry()
