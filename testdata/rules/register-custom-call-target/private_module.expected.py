"""jaxlib's own registration pattern, reached through private modules that still work
but change without notice; an explicit api_version is kept."""

from . import _hip_prng
import jax

for _name, _value in _hip_prng.registrations().items():
    jax.ffi.register_ffi_target(_name, _value, platform="ROCM", api_version=0)

jax.ffi.register_ffi_target("typed_handler", _hip_prng.handler(), platform="cpu", api_version=1)
