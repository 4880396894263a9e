"""jaxlib <= 0.4.7 hlo_helpers signature: backend_config as the sixth positional argument."""
from jaxlib.mhlo_helpers import custom_call


def lower(ctx, x, layout):
    return custom_call(b"old_kernel", [x.type], [x], [layout], [layout], {"n": 4})
