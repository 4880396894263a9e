"""A microlensing kernel (caustics style): the rule's trailing parameters are the
primitive's own (``itmax``, bound by keyword) and the platform its registration binds
with ``partial(rule, platform="cpu")``. The platform is read in the body, yet it is no
operand: what the registration binds by keyword never is."""
from functools import partial

import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax
from jax import core

roots_p = Primitive("roots")


def roots(coeffs, itmax=50):
    return roots_p.bind(coeffs, itmax=itmax)


def _roots_translation(ctx, coeffs, itmax=None, platform="cpu"):
    shape = ctx.avals_in[0]
    if platform == "cpu":
        return jax.ffi.ffi_lowering(
            "ehrlich_aberth_cpu",
            api_version=1,
            operand_layouts=((), None),
            result_layouts=[None],
        )(ctx.replace(avals_in=[core.ShapedArray(np.shape(np.int64(itmax)), np.asarray(np.int64(itmax)).dtype), ctx.avals_in[0]]), mlir.ir_constant(np.asarray(np.int64(itmax))), coeffs)
    raise ValueError(f"unsupported platform {platform}")


mlir.register_lowering(roots_p, partial(_roots_translation, platform="cpu"), platform="cpu")
