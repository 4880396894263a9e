"""A helper reached as jax.util.safe_map where a local of that name exists."""
import jax


def safe_map(f, *args):
    """f applied across sequences of one length, as a list (jax.util.safe_map, removed in jax 0.7.0)."""
    if not args:
        raise TypeError("safe_map requires at least 2 arguments")
    args = [list(arg) for arg in args]
    n = len(args[0])
    if any(len(arg) != n for arg in args):
        raise ValueError(f"safe_map() arguments of lengths {tuple(len(arg) for arg in args)}")
    return [f(*[arg[i] for arg in args]) for i in range(n)]


def f(xs):
    safe_map = None
    return jax.util.safe_map(len, xs), safe_map


def g(xs):
    return safe_map(len, xs)
