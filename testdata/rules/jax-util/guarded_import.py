try:
    from jax.util import safe_map, safe_zip
except ImportError:
    from jax._src.util import safe_map, safe_zip


def add_all(xs, ys):
    return safe_map(lambda a, b: a + b, xs, safe_zip(xs, ys) and ys)
