"""An ordered side effect and a jaxpr pass, written against jax.core's internals (deprecated
in jax 0.10.0, gone in 0.11.0)."""
import jax
from jax import core
from jax.abstract_arrays import abstract_token
from jax.core import DropVar, new_jaxpr_eqn


class OrderedIOEffect(core.Effect):
    __str__ = lambda self: "OrderedIO"


ordered_io = OrderedIOEffect()


def barrier_abstract_eval(token):
    return abstract_token, {ordered_io}


def pure_abstract_eval(x):
    return core.ShapedArray(x.shape, x.dtype), core.no_effects


def drop_unused(jaxpr, used):
    eqns = []
    for eqn in jaxpr.eqns:
        outvars = [v if v in used else DropVar(v.aval) for v in eqn.outvars]
        eqns.append(new_jaxpr_eqn(eqn.invars, outvars, eqn.primitive, eqn.params, eqn.effects, eqn.source_info))
    return eqns


def is_jax_value(x):
    try:
        return core.valid_jaxtype(x)
    except core.JaxprTypeError:
        return False
