"""Another module's lowering rule calls the wrapping helper: this file is migrated on its
own, so the call is reported with what it must pass once the helper takes the context."""
from wrapped_builder import call_kernel


def _scaled_norm_lowering(ctx, x, *, scale):
    return call_kernel("scaled_norm_f32", [x.type], [x], [(0,)], bytes([scale]))
