"""A kernel built at run time and wrapped in a PyCapsule with ctypes, as numba-based
bridges do (a numba cfunc's address handed to PyCapsule_New); here the kernel is a
ctypes callback, so the binding runs anywhere. Untyped CPU ABI: void(out, ins)."""
import ctypes

import numpy as np

import jax

SIZE = 4
_KERNEL_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))


def _add_one(out, ins):
    source = (ctypes.c_float * SIZE).from_address(ins[0])
    target = (ctypes.c_float * SIZE).from_address(out)
    for i in range(SIZE):
        target[i] = source[i] + 1.0


_kernel = _KERNEL_TYPE(_add_one)
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
capsule = _capsule_new(ctypes.cast(_kernel, ctypes.c_void_p).value, b"xla._CUSTOM_CALL_TARGET", None)

jax.ffi.register_ffi_target("ccm_add_one", capsule, platform="cpu", api_version=0)


def add_one(x):
    result = jax.ShapeDtypeStruct((SIZE,), np.float32)
    return jax.ffi.ffi_call("ccm_add_one", result, custom_call_api_version=1, legacy_backend_config="")(x)


def compat_entry():
    return add_one, (np.arange(SIZE, dtype=np.float32),)
