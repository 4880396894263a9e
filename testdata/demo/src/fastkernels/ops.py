"""Primitives and lowering rules. Written for an older jax: several configs are passed
as Python objects, which current jax rejects when the functions are lowered."""

import jax
import jax.numpy as jnp
from jax._src.interpreters import mlir
from jax.extend.core import Primitive

from fastkernels import config_pb2
from fastkernels.configs import TileConfig

# Defaults shared by every call of the scale kernel.
SCALE_DEFAULTS = {"mode": "fast", "alpha": 2.0, "sizes": [1, 2]}


def _unary_primitive(name):
    prim = Primitive(name)
    prim.def_impl(lambda x, **params: x)
    prim.def_abstract_eval(lambda x, **params: x)
    return prim


scale_p = _unary_primitive("fastkernels_scale")
tiled_sum_p = _unary_primitive("fastkernels_tiled_sum")
quantize_p = _unary_primitive("fastkernels_quantize")
clip_p = _unary_primitive("fastkernels_clip")
normalize_p = _unary_primitive("fastkernels_normalize")
copy_p = _unary_primitive("fastkernels_copy")


def _result_types(ctx):
    return [mlir.aval_to_ir_type(ctx.module_context, aval) for aval in ctx.avals_out]


def _scale_lowering(ctx, x):
    # A dict of plain values: RuntimeError: std::bad_cast
    return mlir.custom_call(
        "fastkernels_scale_f32",
        result_types=_result_types(ctx),
        operands=[x],
        backend_config=SCALE_DEFAULTS,  # read with nlohmann::json in scale.cc
        api_version=3,
    ).results


def _tiled_sum_lowering(ctx, x):
    # A dataclass: ValueError: custom_call backend_config unexpected type
    return mlir.custom_call(
        "fastkernels_tiled_sum",
        result_types=_result_types(ctx),
        operands=[x],
        backend_config=TileConfig(tile=64),
    ).results


def _quantize_lowering(ctx, x):
    config = config_pb2.QuantizeConfig(bits=8, scale=0.5, block=[4, 4], mode="nearest")
    return mlir.custom_call(
        "fastkernels_quantize",
        result_types=_result_types(ctx),
        operands=[x],
        backend_config=config,
        api_version=2,
    ).results


def _clip_lowering(ctx, x):
    # A list of bounds, and the FFI helpers with an opaque api_version.
    return jax.ffi.ffi_lowering("fastkernels_clip", api_version=2, backend_config=[-1.0, 1.0])(ctx, x)


def _normalize_lowering(ctx, x):
    # Typed FFI (api_version=4): the config must be a dict of MLIR attributes.
    return mlir.custom_call(
        "fastkernels_normalize",
        result_types=_result_types(ctx),
        operands=[x],
        backend_config={"eps": 1e-5, "axis": 0},
        api_version=4,
    ).results


def _copy_lowering(ctx, x):
    # Already valid: bytes pass through untouched.
    return mlir.custom_call(
        "fastkernels_copy",
        result_types=_result_types(ctx),
        operands=[x],
        backend_config=b"\x01\x00copy",
    ).results


mlir.register_lowering(scale_p, _scale_lowering, platform="cpu")
mlir.register_lowering(tiled_sum_p, _tiled_sum_lowering, platform="cpu")
mlir.register_lowering(quantize_p, _quantize_lowering, platform="cpu")
mlir.register_lowering(clip_p, _clip_lowering, platform="cpu")
mlir.register_lowering(normalize_p, _normalize_lowering, platform="cpu")
mlir.register_lowering(copy_p, _copy_lowering, platform="cpu")


def scale(x):
    return scale_p.bind(x)


def tiled_sum(x):
    return tiled_sum_p.bind(x)


def quantize(x):
    return quantize_p.bind(x)


def clip(x):
    return clip_p.bind(jnp.asarray(x))


def normalize(x):
    return normalize_p.bind(x)


def copy(x):
    return copy_p.bind(x)
