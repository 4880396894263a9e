"""Older bindings: bytes names, the CPU-only helper, the platform passed positionally."""
import jax
from jax.lib import xla_client as xc

from . import xla_ops

xc.register_cpu_custom_call_target(b"kepler", xla_ops.kepler())
jax.lib.xla_client.register_custom_call_target(b"lfilter", xla_ops.lfilter(), "CUDA")
