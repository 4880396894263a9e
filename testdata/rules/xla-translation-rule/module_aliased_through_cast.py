# ccmigrate-args: --every-rule
"""An environment library's XLA template (envpool style): the jax modules are used through
module-level aliases made with typing.cast, which is the value itself at run time. The
registration and the primitive are found through them."""
from typing import Any, cast

import numpy as np
from jax import core
from jax.interpreters import xla
from jax.lib import xla_client

_core = cast(Any, core)
_xla = cast(Any, xla)


def _step_translation(c, *args):
    return xla_client.ops.CustomCallWithLayout(
        c,
        b"env_step",
        operands=args,
        operand_shapes_with_layout=(xla_client.Shape.array_shape(np.dtype("float32"), (3,), (0,)),),
        shape_with_layout=xla_client.Shape.array_shape(np.dtype("float32"), (3,), (0,)),
        opaque=b"handle",
        has_side_effect=True,
    )


step_p = _core.Primitive("env_step")
_xla.backend_specific_translations["cpu"][step_p] = _step_translation
