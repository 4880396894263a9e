# ccmigrate-args: --select backend-config,custom-call-api
"""The builder in parentheses, imported on two paths: ``(custom_call)(...)`` reads like a
parameter list to the quick text test, so the names come from scope analysis; both rules
see the call in the same run, and the dict config is serialised in that run."""
try:
    from jaxlib.mhlo_helpers import custom_call
except ImportError:
    from jaxlib.hlo_helpers import custom_call


def lowering(ctx, x, *, n):
    return [(custom_call)("scale", out_types=[x.type], operands=[x], backend_config={"mode": "fast"})]
