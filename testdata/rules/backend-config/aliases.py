"""Every import spelling reaches the rule; existing json alias is reused."""
import json as js

import jax
import jax._src.interpreters.mlir as M
from jax import ffi
from jax._src.interpreters import mlir as private_mlir
from jaxlib.hlo_helpers import custom_call as hlo_custom_call


def lower_a(ctx, x):
    return M.custom_call("a", result_types=[], operands=[x], backend_config=[1, 2, 3])


def lower_b(ctx, x):
    return hlo_custom_call("b", result_types=[], operands=[x], backend_config=7)


def lower_c(ctx, x):
    return private_mlir.custom_call("c", result_types=[], operands=[x], backend_config=True)


def lower_d(ctx, x):
    return jax.ffi.ffi_lowering("d", api_version=2, backend_config={"k": 1})(ctx, x)


def lower_e(ctx, x):
    return ffi.build_ffi_lowering_function("e", api_version=3, backend_config=-1.5)(ctx, x)


def call_f(x):
    return jax.ffi.ffi_call("f", x, custom_call_api_version=2, legacy_backend_config={"b": 2, "a": 1})(x)
