"""custom_call imported on two paths (mhlo_helpers, else hlo_helpers) is still a custom call."""
try:
    from jaxlib.mhlo_helpers import custom_call
except ImportError:
    from jaxlib.hlo_helpers import custom_call


def lowering(ctx, x, *, n):
    return [custom_call("scale", out_types=[x.type], operands=[x], backend_config={"n": n, "mode": "fast"})]
