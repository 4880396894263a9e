"""Kernel registration chosen by a jax version test, as the numba and Warp bridges wrote it:
the ``else`` branches are what jax >= 0.4.35 runs, the first ones serve older releases."""
import ctypes

import jax

if jax.__version_info__ < (0, 4, 35):
    from jax.lib import xla_client
else:
    import jax.extend as je

_JAX_VERSION = tuple(int(p) for p in jax.__version__.split(".") if p.isdigit())


def register_cpu(target_name, address):
    capsule = ctypes.pythonapi.PyCapsule_New(address, b"xla._CUSTOM_CALL_TARGET", None)
    if jax.__version_info__ < (0, 4, 35):
        xla_client.register_custom_call_target(target_name, capsule, "cpu")
    else:
        jax.ffi.register_ffi_target(target_name, capsule, "cpu", api_version=0)


def register_gpu(target_name, capsule):
    if _JAX_VERSION >= (0, 4, 35):
        return jax.ffi.register_ffi_target(target_name, capsule, "CUDA", api_version=0)
    xla_client.register_custom_call_target(target_name, capsule, "gpu")


def register_sliced(target_name, capsule):
    # A test on part of the version is not read: both branches stay as they are.
    if jax.__version_info__[:2] > (0, 4):
        je.ffi.register_ffi_target(target_name, capsule, "CUDA", api_version=0)
    else:
        xla_client.register_custom_call_target(target_name, capsule, "gpu")
