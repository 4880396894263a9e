"""A Cholesky binding in the style of jaxlib's 2019 LAPACK wrappers, written on the
ComputationBuilder's own methods: c.GetShape reads the operand's shape, c.ConstantPredScalar
and c.ConstantS32Scalar build the scalar operands, c.CustomCallWithLayout the op; the
kernel is chosen per dtype and the matrix passed column-major."""
from functools import partial

import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax


def _ccmigrate_target_name(name):
    """Custom-call target names may be bytes in XlaBuilder code; MLIR wants str (added by ccmigrate)."""
    return name.decode() if isinstance(name, bytes) else name


potrf_p = Primitive("potrf")
potrf_p.def_abstract_eval(lambda a, *, lower: ShapedArray(a.shape, a.dtype))


def jax_potrf(ctx, a, lower=False):
    a_shape = ctx.avals_in[0]
    dtype = a_shape.dtype
    m, n = a_shape.shape
    if m != n:
        raise ValueError("potrf expects a square matrix, got {}".format((m, n)))
    if dtype == np.float32:
        fn = b"lapack_spotrf"
    elif dtype == np.float64:
        fn = b"lapack_dpotrf"
    else:
        raise NotImplementedError("Unsupported dtype {}".format(dtype))
    return jax.ffi.ffi_lowering(
        _ccmigrate_target_name(fn),
        api_version=1,
        operand_layouts=(
            (),
            (),
            (0, 1),
        ),
        result_layouts=[(0, 1)],
    )(ctx.replace(avals_in=[ShapedArray(np.shape(np.bool_(lower)), np.asarray(np.bool_(lower)).dtype), ShapedArray(np.shape(np.int32(n)), np.asarray(np.int32(n)).dtype), ctx.avals_in[0]]), mlir.ir_constant(np.asarray(np.bool_(lower))), mlir.ir_constant(np.asarray(np.int32(n))), a)


mlir.register_lowering(potrf_p, partial(jax_potrf, lower=True), platform="cpu")


def compat_entry():
    return (lambda a: potrf_p.bind(a, lower=True)), (np.eye(3, dtype=np.float32),)
