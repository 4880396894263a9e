# ccmigrate-args: --annotate
"""A module-level helper without a lowering context: manual, annotated."""
# TODO(ccmigrate): [custom-call-api] import of `jaxlib.hlo_helpers.custom_call` (deleted from jax) kept for the 1 manual site(s) that use it, annotated with TODO(ccmigrate): it fails at import time until they are migrated
from jaxlib.hlo_helpers import custom_call


def build_call(name, operands, out_type, opaque):
    # TODO(ccmigrate): [custom-call-api] jaxlib.hlo_helpers.custom_call was removed in jax 0.8.0 and no enclosing lowering rule (a function whose first parameter is the LoweringRuleContext) is in reach; `build_call` is a helper, not a lowering rule (not called in this module): give it the lowering context as a parameter, pass each caller's context, and have other modules that import `build_call` pass theirs; then replace it with `jax.ffi.ffi_lowering(name, api_version=<old, 2 by default>, backend_config=..., result_types=..., operand_layouts=..., result_layouts=...)(ctx, *operands)` inside the lowering rule (`skip_ffi_layout_processing=True` when the old call gave no layouts)
    return custom_call(name, result_types=[out_type], operands=operands, backend_config=opaque).results
