"""A model-parallel training script of the pjit era: the mesh is entered with the
removed maps.mesh context manager and its shape read from thread_resources."""
import jax
import numpy as np
from jax.experimental.pjit import pjit
from jax.sharding import Mesh, PartitionSpec as P
from jax.interpreters.pxla import thread_resources


def train(devices_per_host=1):
    devices = np.array(jax.devices()).reshape((-1, devices_per_host))
    step = pjit(lambda x: x * 2, in_shardings=P("dp", None), out_shardings=P("dp", None))
    with Mesh(devices, ("dp", "mp")):
        dp = thread_resources.env.shape["dp"]
        return step(np.ones((dp * 2, 4), np.float32)), dp


def sample(devices):
    with Mesh(devices, axis_names=("dp",)), open("/dev/null") as sink:
        return sink.name

