"""The try guards an optional compiled extension, not a jax release: it is migrated."""
from jax.lib import xla_client

try:
    from . import jax_finufft_gpu

    for _name, _value in jax_finufft_gpu.registrations().items():
        xla_client.register_custom_call_target(_name, _value, platform="CUDA")
except ImportError:
    jax_finufft_gpu = None
