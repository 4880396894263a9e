# ccmigrate-args: --select xla-client-import,register-custom-call-target
"""The same cython package with the module imported dotted (`import jax.lib.xla_client`)
and deleted in full at the end: `del jax.lib.xla_client` would raise AttributeError once jax
has no such module, so it leaves the `del`, and the import becomes `import jax`, which the
registrations read."""
import os

import jax.lib.xla_client

from . import mpi_xla_bridge_cpu

for name, fn in mpi_xla_bridge_cpu.cpu_custom_call_targets.items():
    jax.lib.xla_client.register_custom_call_target(name, fn, platform="cpu")

del os, jax.lib.xla_client
