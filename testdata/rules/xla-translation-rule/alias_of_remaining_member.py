"""Module aliases of xla_client members: the one of a removed XlaBuilder API (`ops`) goes
when unused; those of members jaxlib still has stay, unreported, used or not (jax's own
compiler.py writes `CompileOptions = xc.CompileOptions`), and so do Shapes built in a
module with no XlaBuilder program (jax's callback.py)."""
import numpy as np
from jax._src.lib import xla_client as xc
from jaxlib import xla_client

CompileOptions = xc.CompileOptions
Traceback = xc.Traceback
PrimitiveType = xla_client.PrimitiveType
xops = xla_client.ops


def options(num_replicas):
    opts = CompileOptions()
    opts.num_replicas = num_replicas
    return opts, PrimitiveType.F32, Traceback.get_traceback()


def host_shape(dtype, dims):
    return xc.Shape.array_shape(np.dtype(dtype), dims), xc.Shape.token_shape()


def shape_of(value):
    return xc.Shape.from_pyval(value)  # gone from jaxlib's Shape: reported
