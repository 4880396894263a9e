"""Dunder attributes every module has (jax's own ffi.py and rooflines.py read them): no
finding."""
import os

from jax._src import util
from jax._src.lib import jaxlib


def where():
    return os.path.dirname(jaxlib.__file__), list(jaxlib.__path__), util.__dict__.get("safe_map"), util.__name__
