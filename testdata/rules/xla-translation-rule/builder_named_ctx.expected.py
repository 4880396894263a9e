"""A builder rule whose XlaBuilder parameter is called `ctx` (sigkax): the lowering context takes the name."""
from functools import partial

import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax


def _ccmigrate_target_name(name):
    """Custom-call target names may be bytes in XlaBuilder code; MLIR wants str (added by ccmigrate)."""
    return name.decode() if isinstance(name, bytes) else name


def _translation(ctx, x, *, platform="cpu"):
    shape = ctx.avals_in[0]
    return jax.ffi.ffi_lowering(
        _ccmigrate_target_name(platform.encode() + b"_op"),
        api_version=1,
        operand_layouts=(None,),
        result_layouts=[None],
    )(ctx, x)


p = Primitive("op")
mlir.register_lowering(p, partial(_translation, platform="cpu"), platform="cpu")


def compat_entry():
    p.def_abstract_eval(lambda x, **_: x)
    return p.bind, (np.arange(6, dtype=np.float32).reshape(2, 3),)
