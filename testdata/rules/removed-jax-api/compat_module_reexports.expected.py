"""A package's compatibility module: its imports are read by the modules importing it."""
from jax.interpreters.xla import DeviceArray
from jax.tree_util import tree_map as tree_multimap
from functools import partial
from jax.core import ShapedArray
