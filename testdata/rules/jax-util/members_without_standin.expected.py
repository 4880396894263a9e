from jax.util import cache, toposort


def safe_map(f, *args):
    """f applied across sequences of one length, as a list (jax.util.safe_map, removed in jax 0.7.0)."""
    if not args:
        raise TypeError("safe_map requires at least 2 arguments")
    args = [list(arg) for arg in args]
    n = len(args[0])
    if any(len(arg) != n for arg in args):
        raise ValueError(f"safe_map() arguments of lengths {tuple(len(arg) for arg in args)}")
    return [f(*[arg[i] for arg in args]) for i in range(n)]


def wraps(wrapped, namestr=None, docstr=None, **kwargs):
    """functools.wraps, name and docstring formatted from the wrapped one's (jax.util.wraps, removed in jax 0.7.0)."""
    from functools import partial as partial_type

    def wrapper(fun):
        try:
            name = getattr(wrapped, "__name__", None)
            inner = wrapped
            while name is None and isinstance(inner, partial_type):
                inner = inner.func
                name = getattr(inner, "__name__", None)
            if name is None:
                name = "<unnamed function>"
            doc = getattr(wrapped, "__doc__", "") or ""
            fun.__dict__.update(getattr(wrapped, "__dict__", {}))
            fun.__annotations__ = getattr(wrapped, "__annotations__", {})
            fun.__name__ = name if namestr is None else namestr.format(fun=name)
            fun.__module__ = getattr(wrapped, "__module__", "<unknown module>")
            fun.__doc__ = doc if docstr is None else docstr.format(fun=name, doc=doc, **kwargs)
            fun.__qualname__ = getattr(wrapped, "__qualname__", fun.__name__)
            fun.__wrapped__ = wrapped
        except Exception:  # jax's never failed the decoration
            pass
        return fun
    return wrapper


@cache()
def table(n):
    return safe_map(lambda i: i * i, range(n))


def described(f):
    return wraps(f)(lambda *a: f(*a))


def order(nodes):
    return toposort(nodes)
