"""Chunked evaluation (2021 style): the wrapper takes the wrapped function's name and a
docstring built from its own."""
import jax


def chunked(fun, chunk_size):
  docstr = "Chunked {fun}, {chunk} rows at a time:\n\n{doc}"

  @jax.util.wraps(fun, docstr=docstr, chunk=chunk_size)
  def run(x):
    parts = [fun(x[i:i + chunk_size]) for i in range(0, x.shape[0], chunk_size)]
    return jax.numpy.concatenate(parts)

  return run
