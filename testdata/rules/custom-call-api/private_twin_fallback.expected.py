"""The public module imported with its private twin as the fallback: either way
`mlir.custom_call` is the removed builder (jax 0.10.2's private module still has one, but
the public import never fails, so the public name is what the call reads). Once nothing
else reads `mlir`, the guard that chose between the two goes whole."""
import jax


def _lowering(ctx, x, out_type):
    return jax.ffi.ffi_lowering(
        "cpu_scale", api_version=2, result_types=[out_type], backend_config=b"\x01", skip_ffi_layout_processing=True,
    )(ctx, x)
