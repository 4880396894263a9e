# ccmigrate-args: --every-rule
"""A jaxpr interpreter of 2020: it evaluates a function's jaxpr equation by equation."""
from functools import wraps

import jax
from jax.extend.core import Literal


def safe_map(f, *args):
    """f applied across sequences of one length, as a list (jax.util.safe_map, removed in jax 0.7.0)."""
    if not args:
        raise TypeError("safe_map requires at least 2 arguments")
    args = [list(arg) for arg in args]
    n = len(args[0])
    if any(len(arg) != n for arg in args):
        raise ValueError(f"safe_map() arguments of lengths {tuple(len(arg) for arg in args)}")
    return [f(*[arg[i] for arg in args]) for i in range(n)]


def safe_zip(*args):
    """zip over sequences of one length, as a list of tuples (jax.util.safe_zip, removed in jax 0.7.0)."""
    if not args:
        raise TypeError("safe_zip requires at least 1 argument")
    args = [list(arg) for arg in args]
    n = len(args[0])
    if any(len(arg) != n for arg in args):
        raise ValueError(f"safe_zip() arguments of lengths {tuple(len(arg) for arg in args)}")
    return [tuple(arg[i] for arg in args) for i in range(n)]


def unzip2(pairs):
    """A sequence of pairs as two tuples (jax.util.unzip2, removed in jax 0.7.0)."""
    firsts, seconds = [], []
    for first, second in pairs:
        firsts.append(first)
        seconds.append(second)
    return tuple(firsts), tuple(seconds)


map = safe_map
zip = safe_zip


def eval_jaxpr(jaxpr, consts, *args):
    env = {}

    def read(v):
        return v.val if isinstance(v, Literal) else env[v]

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
