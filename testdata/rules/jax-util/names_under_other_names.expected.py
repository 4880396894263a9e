from math import prod as size_of


def smap(f, *args):
    """f applied across sequences of one length, as a list (jax.util.safe_map, removed in jax 0.7.0)."""
    if not args:
        raise TypeError("safe_map requires at least 2 arguments")
    args = [list(arg) for arg in args]
    n = len(args[0])
    if any(len(arg) != n for arg in args):
        raise ValueError(f"safe_map() arguments of lengths {tuple(len(arg) for arg in args)}")
    return [f(*[arg[i] for arg in args]) for i in range(n)]


def szip(*args):
    """zip over sequences of one length, as a list of tuples (jax.util.safe_zip, removed in jax 0.7.0)."""
    if not args:
        raise TypeError("safe_zip requires at least 1 argument")
    args = [list(arg) for arg in args]
    n = len(args[0])
    if any(len(arg) != n for arg in args):
        raise ValueError(f"safe_zip() arguments of lengths {tuple(len(arg) for arg in args)}")
    return [tuple(arg[i] for arg in args) for i in range(n)]


def split_list(items, sizes):
    """items cut into lists of the given sizes, then the rest (jax.util.split_list, removed in jax 0.7.0)."""
    items = list(items)
    parts = []
    for size in sizes:
        parts.append(items[:size])
        items = items[size:]
    parts.append(items)
    return parts


def split_shapes(shapes, counts):
    sizes = smap(size_of, shapes)
    heads, rest = split_list(sizes, counts)
    return heads, rest, szip(shapes, sizes)
