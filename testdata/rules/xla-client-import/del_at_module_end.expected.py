# ccmigrate-args: --select xla-client-import,register-custom-call-target
"""mpi4jax 0.2's cython package: registrations through xla_client, then `del os,
xla_client` to tidy the namespace. The name leaves the `del` (which would raise NameError
once the import is gone), and the import goes with the rewritten registrations; a `del` of
the deleted module alone goes whole."""
import os

import jax

from . import mpi_xla_bridge_cpu

for name, fn in mpi_xla_bridge_cpu.cpu_custom_call_targets.items():
    jax.ffi.register_ffi_target(name, fn, platform="cpu", api_version=0)
    jax.ffi.register_ffi_target(name + "_copy", fn, platform="cpu", api_version=0)

del os
