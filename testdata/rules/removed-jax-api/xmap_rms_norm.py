"""RMS norm over the devices of a mesh, as jax's custom-op tutorial wrote it (2023): a
primitive with no batching rule, run by xmap on one slice of the batch per device."""
from functools import partial

import jax
import jax.numpy as jnp
from jax.experimental.maps import xmap
from jax.experimental.pjit import pjit
from jax.interpreters import mlir
from jax.extend.core import Primitive
from jax.sharding import Mesh, PartitionSpec

_rms_norm_fwd_p = Primitive("rms_norm_fwd")
SEEN_SHAPES = []


def _rms_norm_fwd_impl(x, weight, eps):
    return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def _rms_norm_fwd_abstract(x, weight, eps):
    SEEN_SHAPES.append(x.shape)
    return jax.core.ShapedArray(x.shape, x.dtype)


_rms_norm_fwd_p.def_impl(_rms_norm_fwd_impl)
_rms_norm_fwd_p.def_abstract_eval(_rms_norm_fwd_abstract)
mlir.register_lowering(_rms_norm_fwd_p, mlir.lower_fun(_rms_norm_fwd_impl, multiple_results=False))


def rms_norm(x, weight, eps=1e-05):
    return _rms_norm_fwd_p.bind(x, weight, eps=eps)


jax.config.update("experimental_xmap_spmd_lowering", True)
jax.config.update("experimental_xmap_spmd_lowering_manual", True)


def xmap_rms_norm(x, weight, *, device_count):
    reshaped = x.reshape(device_count, x.shape[0] // device_count, *x.shape[1:])
    xmapped = xmap(
        rms_norm,
        in_axes=(("x", None, None, None), (None, None)),
        out_axes=("x", None, None, None),
        axis_resources={"x": "x"},
    )
    reshaped_out = xmapped(reshaped, weight)
    return reshaped_out.reshape(x.shape)


def sharded_rms_norm(x, weight):
    with Mesh(jax.local_devices(), ("x",)):
        pjitted = pjit(
            partial(xmap_rms_norm, device_count=jax.local_device_count()),
            in_shardings=(PartitionSpec("x", None, None), PartitionSpec(None, None)),
            out_shardings=PartitionSpec("x", None, None),
        )
        return pjitted(x, weight)
