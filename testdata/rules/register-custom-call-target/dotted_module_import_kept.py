"""A plain dotted import of xla_client kept alive by a registration left for older jax
(inside a version test) is reported as the line that fails at import time."""
import jax
import jax.lib.xla_client

import kernels

if jax.__version_info__ < (0, 5):
    jax.lib.xla_client.register_custom_call_target("solve", kernels.solve(), platform="cpu")
else:
    jax.ffi.register_ffi_target("solve", kernels.solve(), platform="cpu", api_version=0)
