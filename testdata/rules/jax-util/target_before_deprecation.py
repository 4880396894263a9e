# ccmigrate-args: --target-jax 0.5.3
from jax.util import safe_map, partial


def scale_all(xs, k):
    return safe_map(partial(lambda k, x: k * x, k), xs)
