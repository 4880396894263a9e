"""Not imported by the package: it still needs the XlaBuilder."""

from jax.extend.core import Primitive
from jax.interpreters import xla

from .backends.sorting import encode_sorted

sorted_p = Primitive("fastkern_sorted")
sorted_p.def_abstract_eval(lambda x: x)

xla.backend_specific_translations["cpu"][sorted_p] = encode_sorted
