"""A package that supports old and new jax picks the module at import time: left as is."""
try:
    from jax import ffi
except ImportError:
    from jax.extend import ffi


def register(lib):
    ffi.register_ffi_target("k", ffi.pycapsule(lib.k), platform="cpu")
