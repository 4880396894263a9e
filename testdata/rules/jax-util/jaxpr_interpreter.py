# ccmigrate-args: --every-rule
"""A jaxpr interpreter of 2020: it evaluates a function's jaxpr equation by equation."""
from functools import wraps

import jax
from jax import core
from jax.util import safe_map, safe_zip, unzip2

map = safe_map
zip = safe_zip


def eval_jaxpr(jaxpr, consts, *args):
    env = {}

    def read(v):
        return v.val if isinstance(v, core.Literal) else env[v]

    def write(v, val):
        env[v] = val

    map(write, jaxpr.constvars, consts)
    map(write, jaxpr.invars, args)
    for eqn in jaxpr.eqns:
        invals = map(read, eqn.invars)
        outvals = eqn.primitive.bind(*invals, **eqn.params)
        if not eqn.primitive.multiple_results:
            outvals = [outvals]
        map(write, eqn.outvars, outvals)
    return map(read, jaxpr.outvars)


def interpret(f):
    @wraps(f)
    def wrapped(*args):
        closed = jax.make_jaxpr(f)(*args)
        return eval_jaxpr(closed.jaxpr, closed.literals, *args)

    return wrapped


def pairs_of(xs, ys):
    return unzip2(zip(xs, ys))
