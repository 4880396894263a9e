"""Older bindings: bytes names, the CPU-only helper, the platform passed positionally."""
import jax

from . import xla_ops

jax.ffi.register_ffi_target("kepler", xla_ops.kepler(), platform="cpu", api_version=0)
jax.ffi.register_ffi_target("lfilter", xla_ops.lfilter(), platform="CUDA", api_version=0)
