# ccmigrate-args: --annotate
"""The helper's old out_types call returned one value or a list by jaxlib release; a
caller indexing it (rather than returning it as its rule's result) does not tell which."""
# TODO(ccmigrate): [custom-call-api] import of `jaxlib.hlo_helpers.custom_call` (deleted from jax) kept for the 1 manual site(s) that use it, annotated with TODO(ccmigrate): it fails at import time until they are migrated
from jaxlib.hlo_helpers import custom_call


def _kernel(name, x):
    # TODO(ccmigrate): [custom-call-api] jaxlib.hlo_helpers.custom_call was removed in jax 0.8.0 and no enclosing lowering rule (a function whose first parameter is the LoweringRuleContext) is in reach; `_kernel` is a helper, not a lowering rule (called from `_first_lowering` (context `ctx`)); not rewritten automatically since its custom_call has the old out_types signature, which returned one value or a list by jaxlib release, and not every caller returns `_kernel`'s value as its lowering rule's result: give it the lowering context as a parameter, pass each caller's context, and have other modules that import `_kernel` pass theirs; then replace it with `jax.ffi.ffi_lowering(name, api_version=<old, 2 by default>, backend_config=..., result_types=..., operand_layouts=..., result_layouts=...)(ctx, *operands)` inside the lowering rule (`skip_ffi_layout_processing=True` when the old call gave no layouts)
    out = custom_call(name, [x.type], [x])
    return out


def _first_lowering(ctx, x):
    outs = _kernel("cpu_first", x)
    return [outs[0]]
