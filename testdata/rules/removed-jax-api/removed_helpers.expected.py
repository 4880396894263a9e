"""Removed helpers with an exact equivalent, as batching and JVP rules wrote them."""
import jax
import jax.numpy as jnp
from jax.interpreters import ad


def _batch(args, dims):
    x, y = args
    bx, by = dims
    x = jnp.moveaxis(x, bx, 0) if bx is not None else x
    y = jnp.moveaxis(y, source=by, destination=-1)
    return x + jnp.swapaxes(y, 0, -1), 0


def _jvp(primals, tangents):
    x, token = primals
    out = (x * 2)
    return (out, token), (tangents[0] * 2, ad.Zero(jax.typeof(token)))


def _jvp_tangent_zero(primals, tangents):
    x, count = primals
    return (x * 2, count), (tangents[0] * 2, ad.Zero(jax.typeof(count).to_tangent_aval()))


def _abstract_eval(x):
    aval = jax.typeof(x)
    return aval, x


def to_torch(x, torch):
    return torch.utils.dlpack.from_dlpack((x + 1).__dlpack__()), x.__dlpack__(stream=0)
