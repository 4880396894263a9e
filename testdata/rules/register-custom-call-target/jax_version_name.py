"""A name bound to jax's version makes the `if` a compatibility guard: left as is."""
import jax
from jax.lib import xla_client

import kernels

JAX_VERSION = tuple(int(p) for p in jax.__version__.split(".")[:2])
if JAX_VERSION < (0, 5):
    xla_client.register_custom_call_target("solve", kernels.solve(), platform="cpu")
else:
    jax.ffi.register_ffi_target("solve", kernels.solve(), platform="cpu", api_version=0)
