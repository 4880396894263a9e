"""The extending-jax shape: one lowering rule, registered per platform with a keyword,
that branches on it; each branch's custom call is for its own platform only."""
from functools import partial

import jax
from jax.extend.core import Primitive
from jax.interpreters import mlir

branches_p = Primitive("hostile_platform_branches")
branches_p.def_abstract_eval(lambda x: x)


def _lowering(ctx, x, *, platform="cpu"):
    if platform == "cpu":
        return jax.ffi.ffi_lowering("branch_cpu_target", api_version=2)(ctx, x)
    elif platform == "gpu":
        return jax.ffi.ffi_lowering("branch_gpu_target", api_version=2, backend_config=b"\x08")(ctx, x)
    raise ValueError(f"unsupported platform {platform}")


mlir.register_lowering(branches_p, partial(_lowering, platform="cpu"), platform="cpu")
mlir.register_lowering(branches_p, partial(_lowering, platform="gpu"), platform="cuda")


def apply(x):
    return branches_p.bind(x)
