"""A package's compatibility module: other modules import these names from it."""
from functools import partial


def safe_map(f, *args):
    """f applied across sequences of one length, as a list (jax.util.safe_map, removed in jax 0.7.0)."""
    if not args:
        raise TypeError("safe_map requires at least 2 arguments")
    args = [list(arg) for arg in args]
    n = len(args[0])
    if any(len(arg) != n for arg in args):
        raise ValueError(f"safe_map() arguments of lengths {tuple(len(arg) for arg in args)}")
    return [f(*[arg[i] for arg in args]) for i in range(n)]


def safe_zip(*args):
    """zip over sequences of one length, as a list of tuples (jax.util.safe_zip, removed in jax 0.7.0)."""
    if not args:
        raise TypeError("safe_zip requires at least 1 argument")
    args = [list(arg) for arg in args]
    n = len(args[0])
    if any(len(arg) != n for arg in args):
        raise ValueError(f"safe_zip() arguments of lengths {tuple(len(arg) for arg in args)}")
    return [tuple(arg[i] for arg in args) for i in range(n)]
