"""A callback module describing buffers with the Shape factories jaxlib.xla_client still has,
through an alias: it builds no XlaBuilder program, so nothing here is removed."""
import numpy as np
from jaxlib import xla_client

x_shape = xla_client.Shape.array_shape


def shapes(n):
    return x_shape(np.dtype("float32"), (n,), (0,))
