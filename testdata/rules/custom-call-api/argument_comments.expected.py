"""Comments among the builder's arguments: the target's trailing comment stays on its line
(api_version is inserted after it), the last argument keeps its own, and those written about
the operands, which move to the lowering function's call, stay as comment lines in the list."""
from jax.interpreters import mlir
import jax


def _lowering(ctx, x, y):
    return jax.ffi.ffi_lowering(
        # the target
        "foo",  # the kernel
        api_version=2,
        result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])],
        # x first, then y
        # both inputs
        backend_config=b"abc",  # opaque
        skip_ffi_layout_processing=True,
    )(ctx, x, y)
