"""Removed helpers with an exact equivalent, as batching and JVP rules wrote them."""
import jax
import jax.numpy as jnp
from jax import core, lax
from jax.interpreters import ad, batching
from jax.interpreters.batching import moveaxis
from jax.core import raise_to_shaped


def _batch(args, dims):
    x, y = args
    bx, by = dims
    x = batching.moveaxis(x, bx, 0) if bx is not None else x
    y = moveaxis(y, src=by, dst=-1)
    return x + jnp.swapaxes(y, 0, -1), 0


def _jvp(primals, tangents):
    x, token = primals
    out = lax.tie_in(token, x * 2)
    return (out, token), (tangents[0] * 2, ad.Zero.from_value(token))


def _jvp_tangent_zero(primals, tangents):
    x, count = primals
    return (x * 2, count), (tangents[0] * 2, ad.Zero.from_primal_value(count))


def _abstract_eval(x):
    aval = raise_to_shaped(core.get_aval(x))
    return core.raise_to_shaped(aval), core.full_lower(x)


def to_torch(x, torch):
    return torch.utils.dlpack.from_dlpack(jax.dlpack.to_dlpack(x + 1)), jax.dlpack.to_dlpack(x, stream=0)
