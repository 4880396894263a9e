"""A FEniCS bridge's abstract evaluation (2020): the output aval is made from a result."""
import jax
from jax.extend.core import Primitive


def define(fem_eval, templates):
    prim = Primitive("fem_eval")
    prim.def_abstract_eval(
        lambda *args: jax.abstract_arrays.make_shaped_array(fem_eval(templates, *args)[0])
    )
    return prim


def aval_of(value):
    return jax.abstract_arrays.make_shaped_array(value)
