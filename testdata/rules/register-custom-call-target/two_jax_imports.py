"""`import jax` next to `import jax.dlpack` binds `jax` twice, to the same package: spell jax.ffi through it."""
import jax
import jax.dlpack
from jax.lib import xla_client as xc

import custom_call

xc.register_custom_call_target("triton_call", custom_call.get_custom_call(), platform="CUDA")
