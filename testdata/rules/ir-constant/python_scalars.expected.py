"""Scalar operands built from Python values (sphericart/jaxpmwd shapes)."""
import numpy as np
from jax.interpreters import mlir
from jaxlib.hlo_helpers import custom_call


def _sph_lowering(ctx, xyz, *, l_max, normalized):
    dtype = mlir.ir.RankedTensorType(xyz.type)
    return custom_call(
        "cpu_sph",
        result_types=[dtype],
        operands=[xyz, mlir.ir_constant(np.asarray(l_max)), mlir.ir_constant(np.asarray(bool(normalized))), mlir.ir_constant(np.asarray(3))],
        operand_layouts=[(1, 0), (), (), ()],
        result_layouts=[(1, 0)],
    ).results


def _already_numpy(ctx, x, *, n):
    kept = np.int32(n)  # a name bound once to a NumPy value (jax's own cond lowering)
    n_elems = np.size(x.type.shape)  # a Python int, though NumPy computed it
    return [x, mlir.ir_constant(kept), mlir.ir_constant(np.asarray(n_elems)), mlir.ir_constant(np.int64(n)), mlir.ir_constant(np.asarray(n)), mlir.ir_constant(n, aval=None)]
