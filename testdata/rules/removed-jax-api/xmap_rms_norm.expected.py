"""RMS norm over the devices of a mesh, as jax's custom-op tutorial wrote it (2023): a
primitive with no batching rule, run by xmap on one slice of the batch per device."""
from functools import partial

import jax
import jax.numpy as jnp
from jax.experimental.pjit import pjit
from jax.interpreters import mlir
from jax.extend.core import Primitive
from jax.sharding import Mesh, PartitionSpec


def _ccmigrate_xmap(fun, in_axes, out_axes, axis_resources):
    """jax.experimental.maps.xmap (removed in jax 0.4.31) on public APIs (added by ccmigrate), for one named
    axis in front of the arguments it maps and of every result, laid out over one mesh axis: ``fun`` runs on
    each slice along that axis without it, as xmap ran it, inside jax.shard_map over the mesh that
    ``with mesh:`` (or jax.set_mesh) set when the mapped function is called."""
    import warnings

    import jax

    ((name, mesh_axis),) = axis_resources.items()

    def maps_front(spec):
        names = [n for n in (spec.values() if isinstance(spec, dict) else spec) if n is not None and n is not ...]
        if not names:
            return False
        first = spec.get(0) if isinstance(spec, dict) else spec[0]
        if names != [name] or first != name:
            raise NotImplementedError(f"_ccmigrate_xmap maps only the first axis, named {name!r}: got {spec!r}")
        return True

    # One entry per argument, or one entry alone (names, None or ..., or a dict) for every argument.
    lone = isinstance(in_axes, dict) or all(n is None or n is ... or isinstance(n, str) for n in in_axes)
    mapped = maps_front(in_axes) if lone else [maps_front(spec) for spec in in_axes]
    # One entry for every result, or a tuple/list of entries, one per result.
    outs = out_axes if isinstance(out_axes, (list, tuple)) and out_axes and all(
        isinstance(entry, (dict, list, tuple)) for entry in out_axes) else [out_axes]
    if not all(maps_front(entry) for entry in outs):
        raise NotImplementedError(f"_ccmigrate_xmap needs the named axis {name!r} first in out_axes")
    spec = jax.sharding.PartitionSpec

    def mapped_fun(*args):
        if not lone and len(args) != len(in_axes):
            raise TypeError(f"in_axes has {len(in_axes)} entries, the call passed {len(args)} arguments")
        flags = [mapped] * len(args) if lone else mapped

        def per_device(*local):
            blocks = [a for a, m in zip(local, flags) if m]

            def one(slices):
                rest = iter(slices)
                return fun(*(next(rest) if m else a for a, m in zip(local, flags)))

            if jax.tree_util.tree_leaves(blocks)[0].shape[0] == 1:  # one slice on each device
                out = one([jax.tree_util.tree_map(lambda a: a[0], b) for b in blocks])
                return jax.tree_util.tree_map(lambda o: o[None], out)
            return jax.lax.map(one, blocks)

        mesh = None
        if jax.sharding.get_abstract_mesh().empty:  # no jax.set_mesh: the mesh of ``with mesh:``
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                mesh = jax.interpreters.pxla.thread_resources.env.physical_mesh
        return jax.shard_map(per_device, mesh=mesh, in_specs=tuple(spec(mesh_axis) if m else spec() for m in flags),
                             out_specs=spec(mesh_axis), check_vma=False)(*args)

    return mapped_fun


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


def xmap_rms_norm(x, weight, *, device_count):
    reshaped = x.reshape(device_count, x.shape[0] // device_count, *x.shape[1:])
    xmapped = _ccmigrate_xmap(
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
