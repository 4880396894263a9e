"""The public module imported with its private twin as the fallback: either way
`mlir.custom_call` is the removed builder (jax 0.10.2's private module still has one, but
the public import never fails, so the public name is what the call reads). Once nothing
else reads `mlir`, the guard that chose between the two goes whole."""
try:
    from jax.interpreters import mlir
except ImportError:
    from jax._src.interpreters import mlir


def _lowering(ctx, x, out_type):
    return mlir.custom_call(
        "cpu_scale", result_types=[out_type], operands=[x], backend_config=b"\x01",
    ).results
