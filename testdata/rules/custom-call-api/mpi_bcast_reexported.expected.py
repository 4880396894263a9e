"""MPI broadcast lowering (mpi4jax style): the builder comes re-exported from a project
module, old `out_types` keyword, bytes target, descriptor constants and a token as
extra operands, returned directly."""
import numpy as _np
from jax.interpreters import mlir
from jax.interpreters.mlir import ir
import jax


def get_default_layouts(operands):
    return [tuple(range(len(ir.RankedTensorType(op.type).shape) - 1, -1, -1)) for op in operands]


def as_mhlo_constant(value, dtype):
    return mlir.ir_constant(dtype(value))


def mpi_bcast_xla_encode_cpu(ctx, x, token, root, comm_handle):
    x_type = ir.RankedTensorType(x.type)
    nitems = _np.prod(x_type.shape, dtype=int)
    out_types = [ir.RankedTensorType.get(x_type.shape, x_type.element_type), token.type]
    operands = (
        as_mhlo_constant(nitems, _np.intc),
        x,
        as_mhlo_constant(root, _np.intc),
        as_mhlo_constant(comm_handle, _np.uintp),
        token,
    )
    return jax.ffi.ffi_lowering(
        "mpi_bcast",
        api_version=2,
        result_types=out_types,
        operand_layouts=get_default_layouts(operands),
        result_layouts=[(0,), ()],
        has_side_effect=True,
    )(ctx.replace(avals_in=[*ctx.avals_in, None, None, None]), *operands)
