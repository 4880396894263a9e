"""jax is an optional dependency (NVIDIA/warp's jax_experimental/custom_call.py): every jax
import lives in the factory that builds the primitive, so the module imports without jax.
The lowering rule spells ffi_lowering through the factory's own `import jax` (the closure
sees it); no import is added at module level."""
import ctypes

_warp_p = None


def _create_primitive():
    import jax
    from jax.interpreters import mlir

    def lowering(ctx, *args, descriptor=""):
        return jax.ffi.ffi_lowering(
            "warp_call",
            api_version=2,
            result_types=[mlir.aval_to_ir_type(ctx.module_context, a) for a in ctx.avals_out],
            backend_config=descriptor.encode("utf-8"),
            skip_ffi_layout_processing=True,
        )(ctx, *args)

    return lowering
