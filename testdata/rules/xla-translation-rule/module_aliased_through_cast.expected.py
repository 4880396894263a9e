# ccmigrate-args: --every-rule
"""An environment library's XLA template (envpool style): the jax modules are used through
module-level aliases made with typing.cast, which is the value itself at run time. The
registration and the primitive are found through them."""
from typing import Any, cast

import numpy as np
from jax import core
from jax.interpreters import mlir, xla
import jax
from jax.extend.core import Primitive

_core = cast(Any, core)
_xla = cast(Any, xla)


def _step_translation(ctx, *args):
    return jax.ffi.ffi_lowering(
        "env_step",
        api_version=1,
        backend_config=b"handle",
        has_side_effect=True,
        operand_layouts=((0,),),
        result_layouts=[(0,)],
    )(ctx, *args)


step_p = Primitive("env_step")
mlir.register_lowering(step_p, _step_translation, platform="cpu")
