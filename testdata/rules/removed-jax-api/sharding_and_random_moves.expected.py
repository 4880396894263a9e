"""Sharding classes and the threefry primitive under the names jax removed: jax.sharding
and jax.extend.random hold the same objects. xmap has no replacement and stays reported."""
import numpy as np
import jax
from jax.experimental.maps import xmap
from jax.experimental.pjit import pjit
from jax.sharding import PartitionSpec as P, Mesh, PartitionSpec as PartitionSpec
from jax.extend.random import threefry2x32_p
from jax.interpreters.pxla import thread_resources


def make_mesh():
    devices = np.asarray(jax.devices())
    return Mesh(devices, ("batch",)), Mesh(devices.reshape(-1, 1), ("data", "model"))


def spec_for(rank):
    return PartitionSpec("data", *([None] * (rank - 1))), P("model")


def current_mesh():
    return thread_resources.env.physical_mesh


def hash_rule_target():
    return threefry2x32_p, threefry2x32_p


sharded = pjit(lambda x: x * 2, in_shardings=P("data"), out_shardings=P("data"))
mapped = xmap(lambda x: x, in_axes=["i", ...], out_axes=["i", ...])
