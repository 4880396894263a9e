"""The extending-jax layout: GPU kernels from an optional extension, not built here.

The module catches its own ImportError and its GPU lowering raises when the extension
is absent, so only a stand-in installed before the import lets the GPU rule lower.
"""
from functools import partial

import jax
from jax.extend.core import Primitive
from jax.interpreters import mlir

try:
    from . import _gpu_kernels
except ImportError:
    _gpu_kernels = None
else:
    for _name, _value in _gpu_kernels.registrations().items():
        jax.ffi.register_ffi_target(_name, _value, platform="CUDA", api_version=0)

guarded_p = Primitive("hostile_guarded")
guarded_p.def_abstract_eval(lambda x: x)


def _lowering(ctx, x, *, platform):
    if platform == "gpu" and _gpu_kernels is None:
        raise ValueError("hostile was not compiled with CUDA support")
    opaque = _gpu_kernels.build_descriptor(x.type)
    return jax.ffi.ffi_lowering("guarded_gpu_target", api_version=2, backend_config=opaque)(ctx, x)


mlir.register_lowering(guarded_p, partial(_lowering, platform="gpu"), platform="cuda")


def apply(x):
    return guarded_p.bind(x)
