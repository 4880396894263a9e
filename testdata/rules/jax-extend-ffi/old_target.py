# ccmigrate-args: --target-jax 0.6.2
"""jax 0.6 still has jax.extend.ffi (deprecated): left for that target."""
from jax.extend import ffi

call = ffi.ffi_call
