"""MPI collectives (mpi4jax style): the token type comes re-exported from the project's
compatibility module and is used as the one-element list jax <= 0.4.30 returned."""
import numpy as _np
from jax.interpreters import mlir
from jax.interpreters.mlir import ir

from jax_compat import hlo_custom_call, token_type


def get_default_layouts(operands):
    token = token_type()[0]
    layouts = []
    for op in operands:
        if isinstance(op, ir.Value):
            op = op.type
        layouts.append(() if op == token else tuple(range(ir.RankedTensorType(op).rank - 1, -1, -1)))
    return layouts


def as_mhlo_constant(value, dtype):
    return mlir.ir_constant(dtype(value))


def mpi_gather_xla_encode_cpu(ctx, x, token, root, comm_handle):
    x_type = ir.RankedTensorType(x.type)
    out_types = [
        ir.RankedTensorType.get(x_type.shape, x_type.element_type),
        *token_type(),
    ]
    operands = (
        as_mhlo_constant(root, _np.intc),
        as_mhlo_constant(comm_handle, _np.uintp),
        x,
        token,
    )
    return hlo_custom_call(
        b"mpi_gather",
        out_types=out_types,
        operands=operands,
        operand_layouts=get_default_layouts(operands),
        result_layouts=get_default_layouts(out_types),
        has_side_effect=True,
    )


def mpi_barrier_xla_encode_cpu(ctx, token, comm_handle):
    out_types = token_type()
    operands = (
        as_mhlo_constant(comm_handle, _np.uintp),
        token,
    )
    # JAX insists on outputs being iterable
    return [
        hlo_custom_call(
            b"mpi_barrier",
            out_types=out_types,
            operands=operands,
            operand_layouts=get_default_layouts(operands),
            result_layouts=get_default_layouts(out_types),
            has_side_effect=True,
        )
    ]


def mpi_flush_xla_encode_cpu(ctx, token):
    return [
        hlo_custom_call(
            b"mpi_flush",
            out_types=token_type(),
            operands=(token,),
            operand_layouts=[()],
            result_layouts=[()],
            has_side_effect=True,
        )
    ]
