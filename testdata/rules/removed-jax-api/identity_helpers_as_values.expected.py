"""pallas/quax-style: the identity helpers read as values, by every spelling."""
from jax import typeof


def input_avals(args):
    return list(map(lambda aval: aval, map(typeof, args)))


def lowered(tracers, lower=True):
    lowering = (lambda x: x) if lower else None
    pick = (lambda x: x) if lower else (lambda x: x)
    return [x for x in map(lowering or pick, tracers)]


to_shaped = lambda aval: aval
