"""The try guards an optional compiled extension, not a jax release: it is migrated."""
import jax

try:
    from . import jax_finufft_gpu

    for _name, _value in jax_finufft_gpu.registrations().items():
        jax.ffi.register_ffi_target(_name, _value, platform="CUDA", api_version=0)
except ImportError:
    jax_finufft_gpu = None
