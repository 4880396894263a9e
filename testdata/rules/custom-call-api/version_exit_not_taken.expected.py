"""A lowering rule that refuses releases too old for its kernel, then builds the call: the
early exit is not taken on the target, so the code after it is what runs and is migrated."""
import jax
from jax.interpreters import mlir
from jaxlib.hlo_helpers import custom_call


def _scan_lowering(ctx, x, *, opaque):
    if jax.__version_info__ < (0, 4, 14):
        raise NotImplementedError("the scan kernel needs jax 0.4.14")
    (aval_out,) = ctx.avals_out
    return jax.ffi.ffi_lowering(
        "cpu_scan",
        api_version=2,
        result_types=[mlir.aval_to_ir_type(ctx.module_context, aval_out)],
        operand_layouts=[(0,)],
        result_layouts=[(0,)],
        backend_config=opaque,
    )(ctx, x)


def _legacy_lowering(ctx, x, *, opaque):
    if jax.__version_info__ >= (0, 4, 14):
        return jax.ffi.ffi_lowering("cpu_scan", api_version=2, backend_config=opaque)(ctx, x)
    (aval_out,) = ctx.avals_out
    return custom_call(
        "cpu_scan",
        result_types=[mlir.aval_to_ir_type(ctx.module_context, aval_out)],
        operands=[x],
        backend_config=opaque,
    ).results
