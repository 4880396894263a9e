"""MPI-style bindings whose scalar operands come from small private helpers returning
ops.Constant(c, np.<type>(x)): each call is replaced by the constant it built, and the
helpers, then unused, go with the xla_client alias."""
import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax

allreduce_p = Primitive("allreduce_mpi")
allreduce_p.def_abstract_eval(lambda x, *, count, comm: ShapedArray(x.shape, x.dtype))


def mpi_allreduce_xla_encode_cpu(ctx, x, *, count, comm):
    shape = (0,)
    return jax.ffi.ffi_lowering(
        "mpi_allreduce",
        api_version=1,
        has_side_effect=True,
        operand_layouts=(
            (),
            shape,
            (),
        ),
        result_layouts=[shape],
    )(ctx.replace(avals_in=[ShapedArray(np.shape(np.int32(count)), np.asarray(np.int32(count)).dtype), ctx.avals_in[0], ShapedArray(np.shape(np.uint64(comm)), np.asarray(np.uint64(comm)).dtype)]), mlir.ir_constant(np.asarray(np.int32(count))), x, mlir.ir_constant(np.asarray(np.uint64(comm))))


mlir.register_lowering(allreduce_p, mpi_allreduce_xla_encode_cpu, platform="cpu")


def compat_entry():
    return (lambda x: allreduce_p.bind(x, count=4, comm=1234567)), (np.ones(4, np.float32),)
