"""The opaque built by the extension's descriptor builder (the custom-call tutorials' and
jaxlib's `build_*_descriptor`, packing a C struct into bytes) is already what
backend_config takes: no finding, nothing wrapped. Modelled on spp_csr_matmul."""
from jax.interpreters import mlir
from jax.interpreters.mlir import ir

from . import sp_ops


def _lowering_cuda(ctx, data, rhs):
    data_type = ir.RankedTensorType(data.type)
    descriptor_opaque = sp_ops.build_csr_and_dense_descriptor(data_type.shape[0], 3)
    return mlir.custom_call(
        b"spp_csr_matmul_cuda",
        result_types=[data.type],
        operands=[data, rhs],
        operand_layouts=[(0,), (1, 0)],
        result_layouts=[(0,)],
        backend_config=descriptor_opaque,
    ).results


def _lowering_cpu(ctx, x):
    return mlir.custom_call(b"cpu_scale", result_types=[x.type], operands=[x],
                            backend_config=sp_ops.scale_opaque(2)).results


def _local_descriptor(n):
    return {"n": n}  # a function of this module: its result is in view, and not bytes


def _lowering_local(ctx, x):
    return mlir.custom_call(b"cpu_local", result_types=[x.type], operands=[x],
                            backend_config=_local_descriptor(2)).results
