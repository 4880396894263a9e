"""The layout of jax's FFI examples: kernels in a shared library the package loads with
ctypes, which is not built here."""
import ctypes
import os

import jax

_lib = ctypes.cdll.LoadLibrary(os.path.join(os.path.dirname(__file__), "_build", "librmsnorm.so"))
jax.ffi.register_ffi_target("ctypes_target", jax.ffi.pycapsule(_lib.RmsNorm), platform="cpu")


def rms_norm(x):
    out = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return jax.ffi.ffi_call("ctypes_target", out, vmap_method="broadcast_all")(x, eps=1e-5)
