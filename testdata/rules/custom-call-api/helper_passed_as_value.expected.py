# ccmigrate-args: --annotate
"""The helper is also handed on as a value (to partial): whoever calls it that way passes
no context, so it stays manual, saying why."""
import functools

# TODO(ccmigrate): [custom-call-api] import of `jaxlib.hlo_helpers.custom_call` (deleted from jax) kept for the 1 manual site(s) that use it, annotated with TODO(ccmigrate): it fails at import time until they are migrated
from jaxlib.hlo_helpers import custom_call


def _scale_hlo(name, x):
    # TODO(ccmigrate): [custom-call-api] jaxlib.hlo_helpers.custom_call was removed in jax 0.8.0 and no enclosing lowering rule (a function whose first parameter is the LoweringRuleContext) is in reach; `_scale_hlo` is a helper, not a lowering rule (called from `_scale_lowering` (context `ctx`)); not rewritten automatically since `_scale_hlo` is also used other than by calling it (passed or kept as a value): give it the lowering context as a parameter, pass each caller's context, and have other modules that import `_scale_hlo` pass theirs; then replace it with `jax.ffi.ffi_lowering(name, api_version=<old, 2 by default>, backend_config=..., result_types=..., operand_layouts=..., result_layouts=...)(ctx, *operands)` inside the lowering rule (`skip_ffi_layout_processing=True` when the old call gave no layouts)
    return custom_call(name, result_types=[x.type], operands=[x]).results


def _scale_lowering(ctx, x):
    return _scale_hlo("cpu_scale", x)


_scale_f32 = functools.partial(_scale_hlo, "cpu_scale_f32")
