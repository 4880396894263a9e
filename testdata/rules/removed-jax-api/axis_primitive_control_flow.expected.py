"""A quantum-compiler frontend's control-flow primitives (2023): declared with jax's
private AxisPrimitive, as jax declared cond and while then, beside plain primitives of
the same private core. jax 0.4.36 made its own AxisPrimitives plain primitives; these
become jax.extend.core.Primitive the same way, a subclass included."""
import jax.numpy as jnp
from jax._src import core
from jax.interpreters import mlir
from jax.extend.core import Primitive

hermitian_p = core.Primitive("hermitian")
qfor_p = Primitive("qfor")
qfor_p.multiple_results = True


class LoopPrimitive(Primitive):
    """A loop whose body runs a given number of times."""


qwhile_p = LoopPrimitive("qwhile")
qwhile_p.multiple_results = True


def _qfor_abstract_eval(*avals, body, trips):
    return list(avals)


def _qfor(*args, body, trips):
    for _ in range(trips):
        args = body(*args)
    return list(args)


for _prim in (qfor_p, qwhile_p):
    _prim.def_impl(_qfor)
    _prim.def_abstract_eval(_qfor_abstract_eval)
    mlir.register_lowering(_prim, mlir.lower_fun(_qfor, multiple_results=True))


def qfor(body, trips, *args):
    return qfor_p.bind(*args, body=body, trips=trips)


def scaled(x):
    return qfor(lambda v: (v * 2,), 3, jnp.asarray(x))[0]
