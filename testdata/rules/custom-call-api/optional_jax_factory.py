"""jax is an optional dependency (NVIDIA/warp's jax_experimental/custom_call.py): every jax
import lives in the factory that builds the primitive, so the module imports without jax.
The lowering rule spells ffi_lowering through the factory's own `import jax` (the closure
sees it); no import is added at module level."""
import ctypes

_warp_p = None


def _create_primitive():
    import jax
    from jax.interpreters import mlir
    from jaxlib.hlo_helpers import custom_call

    def lowering(ctx, *args, descriptor=""):
        return custom_call(
            b"warp_call",
            result_types=[mlir.aval_to_ir_type(ctx.module_context, a) for a in ctx.avals_out],
            operands=args,
            backend_config=descriptor.encode("utf-8"),
        ).results

    return lowering
