"""What differs between the jax and jaxlib releases commjax supports."""

import jaxlib


def versiontuple(verstr):
    return tuple(int(v) for v in verstr.split(".")[:3])


def default_layouts(*shapes):
    return [tuple(range(len(shape) - 1, -1, -1)) for shape in shapes]


# Remove once only jaxlib > 0.4.2 is supported.
if versiontuple(jaxlib.__version__) >= (0, 4, 2):
    from jaxlib.hlo_helpers import custom_call as hlo_custom_call  # noqa: F401
else:
    from jaxlib.mhlo_helpers import custom_call as hlo_custom_call  # noqa: F401
