"""oryx-style: raise_to_shaped passed as a function, not called: it becomes the identity
its rewritten calls are, and the jax.abstract_arrays import goes with its last use."""
from jax.extend.core import Primitive

tie_all_p = Primitive("tie_all")
tie_all_p.multiple_results = True
tie_all_p.def_abstract_eval(lambda *args: list(map(lambda aval: aval, args)))
