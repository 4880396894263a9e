"""An ocean model's tridiagonal solver (veros style): the kernel writes a scratch buffer
as a second result, and the builder rule hands back only the first one with
``ops.GetTupleElement(out, 0)``. The lowering keeps both results, with the avals the
tuple shape gave them, and returns ``[out[0]]``; the GPU rule lists its operand shapes
as ``(arr_shape,) * 4``."""
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax
from jax import core


def _ccmigrate_target_name(name):
    """Custom-call target names may be bytes in XlaBuilder code; MLIR wants str (added by ccmigrate)."""
    return name.decode() if isinstance(name, bytes) else name


def tridiag_cpu(ctx, a, b, c, d):
    x_shape = ctx.avals_in[0]
    dtype = x_shape.dtype
    dims = x_shape.shape
    num_systems = 1
    for el in dims[:-1]:
        num_systems *= el
    stride = dims[-1]
    arr_shape = None
    kernel = b"tridiag_f32" if dtype == np.float32 else b"tridiag_f64"
    out = jax.ffi.ffi_lowering(
        _ccmigrate_target_name(kernel),
        api_version=1,
        skip_ffi_layout_processing=True,
    )(ctx.replace(avals_in=[ctx.avals_in[0], ctx.avals_in[1], ctx.avals_in[2], ctx.avals_in[3], core.ShapedArray(np.shape(np.int64(num_systems)), np.asarray(np.int64(num_systems)).dtype), core.ShapedArray(np.shape(np.int64(stride)), np.asarray(np.int64(stride)).dtype)], avals_out=[core.ShapedArray(dims, dtype), core.ShapedArray((stride,), dtype)]), a, b, c, d, mlir.ir_constant(np.asarray(np.int64(num_systems))), mlir.ir_constant(np.asarray(np.int64(stride))))
    return [out[0]]


def tridiag_gpu(ctx, a, b, c, d):
    dims = ctx.avals_in[0].shape
    dtype = ctx.avals_in[0].dtype
    ndims = len(dims)
    arr_layout = tuple(range(ndims - 2, -1, -1)) + (ndims - 1,)
    arr_shape = arr_layout
    out_shape = [arr_shape, arr_shape]
    out = jax.ffi.ffi_lowering(
        "tridiag_cuda",
        api_version=1,
        backend_config=b"\x01",
        operand_layouts=(arr_shape,) * 4,
        result_layouts=out_shape,
    )(ctx.replace(avals_out=[core.ShapedArray(dims, dtype), core.ShapedArray(dims, dtype)]), a, b, c, d)
    return [out[0]]


tridiag_p = Primitive("tridiag")
mlir.register_lowering(tridiag_p, tridiag_cpu, platform="cpu")
mlir.register_lowering(tridiag_p, tridiag_gpu, platform="gpu")
