"""A package's compatibility module: its imports are read by the modules importing it."""
from jax.abstract_arrays import ShapedArray
from jax import partial, tree_multimap
from jax.interpreters.xla import DeviceArray
