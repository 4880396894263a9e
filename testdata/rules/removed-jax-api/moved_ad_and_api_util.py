"""jax.ad was jax.interpreters.ad (diffrax-style tracer checks); jax.api_util re-exported
the tree functions (invertible-jaxpr prototypes), and jax._src.api its argnums_partial
(Jacobian helpers copied from api.py); api_util's shaped_abstractify moved to jax._src.core
(a compiler bridge's aval helper). jax.ad.GradRef is jax 0.10's own name."""
import jax
from jax._src.api import _jvp, argnums_partial
from jax._src.api_util import shaped_abstractify
from jax.api_util import flatten_fun_nokwargs, tree_flatten, tree_unflatten


def is_perturbed(x):
    if isinstance(x, jax.ad.JVPTracer):
        return True
    elif isinstance(x, jax.core.Tracer):
        return any(is_perturbed(attr) for _, attr in x._contents())
    return False


def zero_tangent(aval):
    return jax.ad.Zero(aval)


def invert(fun, dummy_input, lu):
    inputs_flat, in_tree = tree_flatten([dummy_input])
    wrapped, out_tree = flatten_fun_nokwargs(lu.wrap_init(fun), in_tree)
    return wrapped, tree_unflatten(in_tree, inputs_flat), out_tree


def new_style(ref):
    return isinstance(ref, jax.ad.GradRef)


def jvp_of_argnums(fun, argnums, args, tangents, lu):
    f_partial, dyn_args = argnums_partial(lu.wrap_init(fun), argnums, args, require_static_args_hashable=False)
    return _jvp(f_partial, dyn_args, tangents)


def abstractify(x):
    if isinstance(x, jax.core.AbstractValue):
        return x
    return shaped_abstractify(x)
