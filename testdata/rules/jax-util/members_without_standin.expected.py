from jax.util import cache, wraps, toposort


def safe_map(f, *args):
    """f applied across sequences of one length, as a list (jax.util.safe_map, removed in jax 0.7.0)."""
    if not args:
        raise TypeError("safe_map requires at least 2 arguments")
    args = [list(arg) for arg in args]
    n = len(args[0])
    if any(len(arg) != n for arg in args):
        raise ValueError(f"safe_map() arguments of lengths {tuple(len(arg) for arg in args)}")
    return [f(*[arg[i] for arg in args]) for i in range(n)]


@cache()
def table(n):
    return safe_map(lambda i: i * i, range(n))


def described(f):
    return wraps(f)(lambda *a: f(*a))


def order(nodes):
    return toposort(nodes)
