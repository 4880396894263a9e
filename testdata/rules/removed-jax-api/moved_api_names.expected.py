"""Names jax moved: the tree functions, jaxpr types, linear_util, get_aval."""
import jax
import jax.extend.linear_util
import jax.tree_util
from jax.extend import linear_util as lu
from jax.tree_util import tree_flatten, tree_leaves, tree_map as tree_multimap
from jax.errors import ConcretizationTypeError
from jax.extend.core import ClosedJaxpr, Jaxpr, Literal, Var
from jax.extend.core.primitives import call_p


def flatten(tree):
    leaves, treedef = tree_flatten(tree)
    return jax.tree_util.tree_unflatten(treedef, tree_leaves(tree)), leaves


def walk(jaxpr: Jaxpr, closed: ClosedJaxpr):
    for eqn in jaxpr.eqns:
        for v in eqn.invars:
            if isinstance(v, Literal):
                continue
            assert isinstance(v, Var), jax.typeof(v)
    return jax.tree_util.tree_map(lambda a: a, closed.consts), tree_multimap(max, [1], [2])


def wrap(f):
    try:
        return lu.wrap_init(f), lu.wrap_init(f)
    except ConcretizationTypeError:
        return call_p
