# ccmigrate-args: --every-rule
"""A dict of MLIR attributes given to legacy mlir.custom_call, as Triton bridges wrote it:
jax emitted it with api_version 1 and the dict as ``mhlo.backend_config``. custom-call-api
moves it to jax.ffi.ffi_lowering with the legacy api_version 2 written out, which emits the
same op; backend-config accepts the dict there too, so a second run changes nothing."""
import zlib

from jax.interpreters import mlir
from jax.extend.mlir import ir


def _triton_call_lowering(ctx, *in_nodes, name, serialized_kernel):
    return mlir.custom_call(
        call_target_name="triton_kernel_call",
        result_types=[mlir.aval_to_ir_type(ctx.module_context, a) for a in ctx.avals_out],
        operands=in_nodes,
        backend_config=dict(
            name=ir.StringAttr.get(name),
            opaque=ir.StringAttr.get(zlib.compress(serialized_kernel)),
        ),
    ).results
