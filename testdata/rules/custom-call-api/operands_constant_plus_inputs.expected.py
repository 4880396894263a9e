"""exoplanet-core's CPU branch as released: a size constant concatenated in front of the
rule's `*args`, and the layouts from a helper the rule cannot see into: the operands
themselves count one beyond the inputs."""
from functools import partial
from math import prod

import numpy as np
from jax.interpreters import mlir
import jax


def _default_layouts(shapes):
    return [range(len(shape) - 1, -1, -1) for shape in shapes]


def _lowering_rule(target_name, ctx, *args):
    size = prod(ctx.avals_in[0].shape)
    return jax.ffi.ffi_lowering(
        target_name,
        api_version=2,
        operand_layouts=[()]
        + _default_layouts(aval.shape for aval in ctx.avals_in),
        result_types=[
            mlir.aval_to_ir_type(ctx.module_context, aval) for aval in ctx.avals_out
        ],
        result_layouts=_default_layouts(
            aval.shape for aval in ctx.avals_out
        ),
    )(ctx.replace(avals_in=[*ctx.avals_in, None]), *(mlir.ir_constant(np.int32(size)),) + args)


kepler_lowering = partial(_lowering_rule, "cpu_kepler")
