"""Names jax moved: the tree functions, jaxpr types, linear_util, get_aval."""
import jax
import jax.linear_util
from jax import core
from jax import linear_util as lu
from jax.core import ClosedJaxpr, Literal, Var
from jax.tree_util import tree_multimap


def flatten(tree):
    leaves, treedef = jax.tree_flatten(tree)
    return jax.tree_util.tree_unflatten(treedef, jax.tree_leaves(tree)), leaves


def walk(jaxpr: core.Jaxpr, closed: ClosedJaxpr):
    for eqn in jaxpr.eqns:
        for v in eqn.invars:
            if isinstance(v, Literal):
                continue
            assert isinstance(v, Var), core.get_aval(v)
    return jax.tree_map(lambda a: a, closed.consts), tree_multimap(max, [1], [2])


def wrap(f):
    try:
        return lu.wrap_init(f), jax.linear_util.wrap_init(f)
    except core.ConcretizationTypeError:
        return core.call_p
