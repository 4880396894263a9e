from jax.util import cache, safe_map, wraps, toposort


@cache()
def table(n):
    return safe_map(lambda i: i * i, range(n))


def described(f):
    return wraps(f)(lambda *a: f(*a))


def order(nodes):
    return toposort(nodes)
