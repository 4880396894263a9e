"""Comments among the builder's arguments: the target's trailing comment stays on its line
(api_version is inserted after it), the last argument keeps its own, and those written about
the operands, which move to the lowering function's call, stay as comment lines in the list."""
from jax.interpreters import mlir
from jaxlib.hlo_helpers import custom_call


def _lowering(ctx, x, y):
    return custom_call(
        # the target
        b"foo",  # the kernel
        result_types=[mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])],
        # x first, then y
        operands=[x, y],  # both inputs
        backend_config=b"abc",  # opaque
    ).results
