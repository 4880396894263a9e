"""Module aliases of xla_client members: the one of a removed XlaBuilder API (`ops`) goes
when unused, the ones of members jaxlib still has stay (jax's own compiler.py writes
`CompileOptions = xc.CompileOptions`)."""
from jax._src.lib import xla_client as xc
from jaxlib import xla_client

CompileOptions = xc.CompileOptions
PrimitiveType = xla_client.PrimitiveType
xops = xla_client.ops


def options(num_replicas):
    opts = CompileOptions()
    opts.num_replicas = num_replicas
    return opts, PrimitiveType.F32
