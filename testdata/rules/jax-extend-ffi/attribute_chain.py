"""A Triton-style bridge reaching the FFI through attribute chains and an alias."""
import jax
import jax.extend as jex
import numpy as np


def _lowering(ctx, x, *, block):
    return jax.extend.ffi.ffi_lowering("triton_kernel_call")(ctx, x, block=np.int32(block))


def scale(x):
    return jex.ffi.ffi_call("scale_kernel", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="sequential")(
        x, factor=np.float32(2.0)
    )


def compat_entry():
    return scale, (np.ones(4, np.float32),)
