# ccmigrate-args: --annotate
"""One caller of the helper is no lowering rule (no context to pass): manual."""
from jaxlib.hlo_helpers import custom_call


def _norm_hlo(x):
    return custom_call("cpu_norm", result_types=[x.type], operands=[x]).results


def _norm_lowering(ctx, x):
    return _norm_hlo(x)


def _debug_norm(x):
    return _norm_hlo(x)
