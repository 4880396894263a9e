"""A lowering rule that had no use for its context deleted it; the FFI builder needs it,
so the ``del`` goes with the rewrite."""
import jax


def _negate_lowering(ctx, x):
    return jax.ffi.ffi_lowering("negate_f32", api_version=2, result_types=[x.type], skip_ffi_layout_processing=True)(ctx, x)
