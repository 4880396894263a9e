"""A texture sampler in the style of small differentiable-rendering bindings: the builder
rule is annotated with the XlaBuilder types and gives every operand its own shape, read
back from the builder, as its layout."""
from typing import Any

import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax
from jax.extend.mlir.dialects import stablehlo as hlo
from jax.extend.mlir import ir


def _ccmigrate_tuple_lowering(call_target_name, **kwargs):
    """jax.ffi.ffi_lowering for a custom call XlaBuilder made with a tuple shape (added by ccmigrate): a tuple
    of one result stays a tuple, its element taken out for the rule, since on CPU a legacy kernel reaches its
    outputs through the tuple's table of pointers; several results are that tuple in XLA already."""

    def lowering(ctx, *operands):
        if len(ctx.avals_out) != 1:
            return jax.ffi.ffi_lowering(call_target_name, **kwargs)(ctx, *operands)
        (aval,) = ctx.avals_out
        result_types = [ir.TupleType.get_tuple([mlir.aval_to_ir_type(ctx.module_context, aval)])]
        (result,) = jax.ffi.ffi_lowering(call_target_name, result_types=result_types, **kwargs)(ctx, *operands)
        return [hlo.get_tuple_element(result, 0)]

    return lowering


sample_p = Primitive("sample")
sample_p.multiple_results = True
sample_p.def_abstract_eval(lambda tex, uv, *, mode: (core.ShapedArray(uv.shape[:-1] + tex.shape[-1:], tex.dtype),))


def _sample_translation(ctx, tex, uv, *args: Any, mode: int):
    tex_shape = ctx.avals_in[0]
    dims_uv = ctx.avals_in[1].shape
    out_shape = (2, 1, 0)
    operands = (tex, uv)
    return _ccmigrate_tuple_lowering(
        "sample_fwd",
        api_version=1,
        backend_config=np.int32(mode).tobytes(),
        operand_layouts=tuple([None for x in operands]),
        result_layouts=(out_shape,),
    )(ctx.replace(avals_in=[ctx.avals_in[0], ctx.avals_in[1]]), *operands)


mlir.register_lowering(sample_p, _sample_translation, platform="cpu")


def compat_entry():
    tex = np.ones((2, 4, 4, 3), np.float32)
    uv = np.zeros((2, 5, 2), np.float32)
    return (lambda t, u: sample_p.bind(t, u, mode=1)), (tex, uv)
