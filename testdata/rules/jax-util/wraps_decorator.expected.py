"""Chunked evaluation (2021 style): the wrapper takes the wrapped function's name and a
docstring built from its own."""
import jax


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


def chunked(fun, chunk_size):
  docstr = "Chunked {fun}, {chunk} rows at a time:\n\n{doc}"

  @wraps(fun, docstr=docstr, chunk=chunk_size)
  def run(x):
    parts = [fun(x[i:i + chunk_size]) for i in range(0, x.shape[0], chunk_size)]
    return jax.numpy.concatenate(parts)

  return run
