"""A sparse triangular solve in the style of small KLU bindings: one builder rule serves
several primitives through a registering decorator that binds the target name, flattens
the batched operands with Reshape/Transpose around the custom call and restores the
result's shape afterwards."""
from functools import partial

import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax
from jax.extend.mlir.dialects import stablehlo as hlo
from jax.extend.mlir import ir


def _ccmigrate_aval(value):
    """What XlaBuilder.get_shape gave for an op: the MLIR value's shape and dtype, as an aval (added by ccmigrate)."""
    tensor = ir.RankedTensorType(value.type)
    for dtype in map(np.dtype, ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                "bfloat16", "float16", "float32", "float64", "complex64", "complex128")):
        if mlir.dtype_to_ir_type(dtype) == tensor.element_type:
            return core.ShapedArray(tuple(tensor.shape), dtype)
    raise TypeError(f"no NumPy dtype for {tensor.element_type}")


def _ccmigrate_target_name(name):
    """Custom-call target names may be bytes in XlaBuilder code; MLIR wants str (added by ccmigrate)."""
    return name.decode() if isinstance(name, bytes) else name


tri_solve_f32 = Primitive("tri_solve_f32")
tri_solve_f32.def_abstract_eval(lambda a, b: core.ShapedArray(b.shape, b.dtype))


def register_cpu(primitive):
    name = primitive.name.encode()

    def decorator(fun):
        mlir.register_lowering(primitive, partial(fun, name), platform="cpu")
        return fun

    return decorator


@register_cpu(tri_solve_f32)
def tri_solve_translation(target, ctx, a, b):
    a_shape = _ccmigrate_aval(a)
    b_shape = _ccmigrate_aval(b)
    *batch, n = a_shape.shape[:-1]
    n_batch = int(np.prod(batch, dtype=np.int64))
    a = hlo.reshape(ir.RankedTensorType.get((n_batch * n * n,), ir.RankedTensorType(a.type).element_type), a)
    a_shape = _ccmigrate_aval(a)
    if batch:
        _, n_col, *rest = b_shape.shape
    else:
        n_col, *rest = b_shape.shape
    n_rhs = int(np.prod(rest, dtype=np.int64))
    b = hlo.reshape(ir.RankedTensorType.get((n_batch, n_col, n_rhs), ir.RankedTensorType(b.type).element_type), b)
    b = hlo.transpose(b, mlir.dense_int_array((0, 2, 1)))
    b = hlo.reshape(ir.RankedTensorType.get((n_batch * n_rhs * n_col,), ir.RankedTensorType(b.type).element_type), b)
    b_shape = _ccmigrate_aval(b)
    n_size = mlir.ir_constant(np.asarray(np.int32(n)))
    n_size_shape = ()
    result = jax.ffi.ffi_lowering(
        _ccmigrate_target_name(target),
        api_version=1,
        backend_config=b"\x01",
        operand_layouts=(n_size_shape, None, None),
        result_layouts=[None],
    )(ctx.replace(avals_in=[_ccmigrate_aval(n_size), _ccmigrate_aval(a), _ccmigrate_aval(b)], avals_out=[b_shape]), n_size, a, b)[0]
    result = hlo.reshape(ir.RankedTensorType.get((n_batch, n_rhs, n_col), ir.RankedTensorType(result.type).element_type), result)
    result = hlo.transpose(result, mlir.dense_int_array((0, 2, 1)))
    if batch:
        result = hlo.reshape(ir.RankedTensorType.get((n_batch, n_col, *rest), ir.RankedTensorType(result.type).element_type), result)
    else:
        result = hlo.reshape(ir.RankedTensorType.get((n_col, *rest), ir.RankedTensorType(result.type).element_type), result)
    return [result]


def compat_entry():
    return tri_solve_f32.bind, (np.ones((2, 3, 3), np.float32), np.ones((2, 3, 4), np.float32))
