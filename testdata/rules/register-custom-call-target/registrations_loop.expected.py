"""The pybind11 extension pattern (extending-jax, BrainPy, sphericart): register every
capsule the C++ module exports, CPU always and GPU when it was built."""

from . import cpu_ops
import jax

for _name, _value in cpu_ops.registrations().items():
    jax.ffi.register_ffi_target(_name, _value, platform="cpu", api_version=0)

try:
    from . import gpu_ops
except ImportError:
    gpu_ops = None
else:
    for _name, _value in gpu_ops.registrations().items():
        jax.ffi.register_ffi_target(_name, _value, platform="gpu", api_version=0)
