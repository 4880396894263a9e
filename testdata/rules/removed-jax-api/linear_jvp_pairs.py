"""Linear primitives of a sparse-matrix binding, each given jax's linear jvp by hand and
a transpose rule beside it: the registration jax.interpreters.ad.deflinear2 makes."""
from functools import partial

import jax

from jax.extend.core import Primitive
from jax.interpreters import ad

scale_p = Primitive("sparse_scale")
scale_p.def_impl(lambda x, *, factor: x * factor)
scale_p.def_abstract_eval(lambda x, *, factor: x)
ad.primitive_jvps[scale_p] = partial(ad.linear_jvp, scale_p)


def _scale_transpose(ct, x, *, factor):
    return [scale_p.bind(ct, factor=factor)]


ad.primitive_transposes[scale_p] = _scale_transpose


def register_linear(prim, transpose):
    """Registers a linear primitive; the transpose goes first here."""
    # Connect the transpose and JVP rules (this comment stays, above the call).
    ad.primitive_transposes[prim] = transpose
    ad.primitive_jvps[prim] = partial(ad.linear_jvp, prim)


def register_apart(prim, transpose):
    # The JVP first, apart from its transpose: this comment heads the next statement.
    ad.primitive_jvps[prim] = partial(ad.linear_jvp, prim)
    prim.def_abstract_eval(lambda x: x)
    ad.primitive_transposes[prim] = transpose


def register_checked(prim, transpose, x):
    # Between the two, the jvp is used: without it registered first this would fail.
    ad.primitive_jvps[prim] = partial(ad.linear_jvp, prim)
    jax.jvp(prim.bind, (x,), (x,))
    ad.primitive_transposes[prim] = transpose


def register_jvp_only(prim):
    ad.primitive_jvps[prim] = partial(ad.linear_jvp, prim)
