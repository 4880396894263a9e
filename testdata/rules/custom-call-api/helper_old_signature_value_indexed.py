# ccmigrate-args: --annotate
"""The helper's old out_types call returned one value or a list by jaxlib release; a
caller indexing it (rather than returning it as its rule's result) does not tell which."""
from jaxlib.hlo_helpers import custom_call


def _kernel(name, x):
    out = custom_call(name, [x.type], [x])
    return out


def _first_lowering(ctx, x):
    outs = _kernel("cpu_first", x)
    return [outs[0]]
