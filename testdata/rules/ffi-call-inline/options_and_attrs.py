"""Options of ffi_call stay on it, attributes move to the call; a runtime vectorized flag
becomes a conditional vmap_method."""
import numpy as np

import jax
import jax.ffi


def fwd(x, y, *, batched, mode):
    out = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct((), np.int32))
    return jax.ffi.ffi_call(
        "attention_fwd",
        out,
        x,
        y,
        has_side_effect=False,
        vectorized=batched,
        mode=np.int32(mode),
        scale=np.float32(0.5),
    )


def no_flag(x):
    return jax.ffi.ffi_call("plain", jax.ShapeDtypeStruct(x.shape, x.dtype), x)


def compat_entry():
    return (lambda x, y: fwd(x, y, batched=False, mode=3)), (np.ones(4, np.float32), np.ones(4, np.float32))
