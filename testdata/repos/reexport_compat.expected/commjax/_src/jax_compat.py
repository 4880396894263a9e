"""What differs between the jax and jaxlib releases commjax supports."""

import jaxlib


def versiontuple(verstr):
    return tuple(int(v) for v in verstr.split(".")[:3])


def default_layouts(*shapes):
    return [tuple(range(len(shape) - 1, -1, -1)) for shape in shapes]
