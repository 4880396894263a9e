"""jaxlib's own registration pattern, reached through private modules that still work
but change without notice; an explicit api_version is kept."""
from jax._src.lib import xla_client
from jaxlib import xla_client as jaxlib_client

from . import _hip_prng

for _name, _value in _hip_prng.registrations().items():
    xla_client.register_custom_call_target(_name, _value, platform="ROCM")

jaxlib_client.register_custom_call_target("typed_handler", _hip_prng.handler(), platform="cpu", api_version=1)
