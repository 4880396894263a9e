import jax
import jax.util
from jax import lax, util


def combine(xs, ys):
    pairs = jax.util.safe_zip(xs, ys)
    doubled = util.safe_map(lambda p: lax.add(p[0], p[1]), pairs)
    return jax.util.partial(sum, doubled)
