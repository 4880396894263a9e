# ccmigrate-args: --annotate
"""One caller of the helper is no lowering rule (no context to pass): manual."""
# TODO(ccmigrate): [custom-call-api] import of `jaxlib.hlo_helpers.custom_call` (deleted from jax) kept for the 1 manual site(s) that use it, annotated with TODO(ccmigrate): it fails at import time until they are migrated
from jaxlib.hlo_helpers import custom_call


def _norm_hlo(x):
    # TODO(ccmigrate): [custom-call-api] jaxlib.hlo_helpers.custom_call was removed in jax 0.8.0 and no enclosing lowering rule (a function whose first parameter is the LoweringRuleContext) is in reach; `_norm_hlo` is a helper, not a lowering rule (called from `_norm_lowering` (context `ctx`), a call); not rewritten automatically since `_norm_hlo` is also called from `_debug_norm`, which holds no lowering context: give it the lowering context as a parameter, pass each caller's context, and have other modules that import `_norm_hlo` pass theirs; then replace it with `jax.ffi.ffi_lowering(name, api_version=<old, 2 by default>, backend_config=..., result_types=..., operand_layouts=..., result_layouts=...)(ctx, *operands)` inside the lowering rule (`skip_ffi_layout_processing=True` when the old call gave no layouts)
    return custom_call("cpu_norm", result_types=[x.type], operands=[x]).results


def _norm_lowering(ctx, x):
    return _norm_hlo(x)


def _debug_norm(x):
    return _norm_hlo(x)
