"""`import jax` next to `import jax.dlpack` binds `jax` twice, to the same package: spell jax.ffi through it."""
import jax
import jax.dlpack

import custom_call

jax.ffi.register_ffi_target("triton_call", custom_call.get_custom_call(), platform="CUDA", api_version=0)
