"""The pybind11 extension pattern (extending-jax, BrainPy, sphericart): register every
capsule the C++ module exports, CPU always and GPU when it was built."""
from jax.lib import xla_client

from . import cpu_ops

for _name, _value in cpu_ops.registrations().items():
    xla_client.register_custom_call_target(_name, _value, platform="cpu")

try:
    from . import gpu_ops
except ImportError:
    gpu_ops = None
else:
    for _name, _value in gpu_ops.registrations().items():
        xla_client.register_custom_call_target(_name, _value, platform="gpu")
