"""A typed translation rule, as the clinical-model kernels wrote theirs: evaluated at
definition, the XlaBuilder-era annotations would fail on import once the rule converts."""
from typing import Sequence

import jax
from jax import core


def gather_translation(
    ctx,
    values,
    indices,
):
    (values_aval, indices_aval) = ctx.avals_in
    (out_aval,) = ctx.avals_out
    return jax.ffi.ffi_lowering(
        "gather_rows",
        api_version=1,
        operand_layouts=[
                (1, 0),
                (0,),
            ],
        result_layouts=[(1, 0)],
    )(ctx, values, indices)


def register(primitive):
    jax.interpreters.mlir.register_lowering(primitive, gather_translation, platform="cuda")
