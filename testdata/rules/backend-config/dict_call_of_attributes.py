"""backend_config built with dict(...) whose values are MLIR attributes, as jax's own Pallas
Triton call and `fused` write it: already a typed config, left alone (json.dumps of it
would fail)."""
import zlib

from jax.interpreters import mlir
from jax.extend.mlir import ir


def _triton_call_lowering(ctx, *in_nodes, name, serialized_kernel):
    return mlir.custom_call(
        call_target_name="triton_kernel_call_ffi",
        result_types=[mlir.aval_to_ir_type(ctx.module_context, a) for a in ctx.avals_out],
        operands=in_nodes,
        backend_config=dict(
            name=ir.StringAttr.get(name),
            opaque=ir.StringAttr.get(zlib.compress(serialized_kernel)),
        ),
    ).results


def _typed_lowering(ctx, x, *, n):
    return mlir.custom_call(
        "typed_kernel", result_types=[x.type], operands=[x],
        backend_config=dict(n=mlir.i64_attr(n)), api_version=4,
    ).results
