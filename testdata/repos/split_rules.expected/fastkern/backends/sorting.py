"""A rule that sorts before its custom call: the XlaBuilder op has no one-for-one
MLIR counterpart here, so it stays, and so does its registration in another module."""

from jax.lib import xla_client


def encode_sorted(c, x):
    ordered = xla_client.ops.Sort(c, [x])
    return xla_client.ops.CustomCall(c, b"fastkern_sorted", operands=(ordered,), shape=c.get_shape(x))
