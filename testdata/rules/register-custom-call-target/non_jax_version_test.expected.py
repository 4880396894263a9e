"""`version` here is a descriptor format's version, not jax's: the branch is no
compatibility guard, so the registration in it is migrated."""

import kernels
import jax

version = kernels.descriptor_format()
if version >= 2:
    jax.ffi.register_ffi_target("solve_v2", kernels.solve_v2(), platform="cpu", api_version=0)
else:
    jax.ffi.register_ffi_target("solve", kernels.solve(), platform="cpu", api_version=0)
