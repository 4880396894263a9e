"""An RMS-norm binding in the style of jax's FFI tutorial as written for jax 0.4.31-0.6:
the FFI helpers imported as a module from jax.extend."""
import numpy as np

import jax
from jax.extend import ffi

rms_norm_p = None


def register(library):
    ffi.register_ffi_target("rms_norm", ffi.pycapsule(library.RmsNorm), platform="cpu")


def rms_norm(x, eps=1e-5):
    out_type = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return ffi.ffi_call("rms_norm", out_type, vmap_method="broadcast_all")(x, eps=np.float32(eps))


def compat_entry():
    return rms_norm, (np.ones((2, 3), np.float32),)
