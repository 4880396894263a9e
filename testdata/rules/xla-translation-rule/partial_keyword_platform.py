"""A microlensing kernel (caustics style): the rule's trailing parameters are the
primitive's own (``itmax``, bound by keyword) and the platform its registration binds
with ``partial(rule, platform="cpu")``. The platform is read in the body, yet it is no
operand: what the registration binds by keyword never is."""
from functools import partial

import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

xops = xla_client.ops

roots_p = Primitive("roots")


def roots(coeffs, itmax=50):
    return roots_p.bind(coeffs, itmax=itmax)


def _roots_translation(c, coeffs, itmax=None, platform="cpu"):
    shape = c.get_shape(coeffs)
    if platform == "cpu":
        return xops.CustomCallWithLayout(
            c,
            b"ehrlich_aberth_cpu",
            operands=(xops.ConstantLiteral(c, np.int64(itmax)), coeffs),
            operand_shapes_with_layout=(xla_client.Shape.array_shape(np.dtype(np.int64), (), ()), shape),
            shape_with_layout=shape,
        )
    raise ValueError(f"unsupported platform {platform}")


xla.backend_specific_translations["cpu"][roots_p] = partial(_roots_translation, platform="cpu")
