"""The JVP registration helper of the brain-dynamics operator packages: a single-result
primitive gets jax's standard_jvp by hand, which jax.interpreters.ad no longer exports."""
import functools

from jax import tree_util
from jax.interpreters import ad


def defjvp(primitive, *jvp_rules):
    if primitive.multiple_results:
        ad.primitive_jvps[primitive] = functools.partial(_standard_jvp, jvp_rules, primitive)
    else:
        ad.primitive_jvps[primitive] = functools.partial(ad.standard_jvp, jvp_rules, primitive)


def defjvp_pair(primitive, rule_x, rule_y):
    ad.primitive_jvps[primitive] = functools.partial(ad.standard_jvp, (rule_x, rule_y), primitive)


def _standard_jvp(jvp_rules, primitive, primals, tangents, **params):
    val_out = tuple(primitive.bind(*primals, **params))
    tangents_out = [rule(t, *primals, **params) for rule, t in zip(jvp_rules, tangents)
                    if rule is not None and type(t) is not ad.Zero]
    zeros = tree_util.tree_map(lambda a: ad.Zero(a.aval.to_tangent_aval()), val_out)
    return val_out, functools.reduce(lambda xs, ys: tree_util.tree_map(ad.add_tangents, xs, ys), tangents_out, zeros)
