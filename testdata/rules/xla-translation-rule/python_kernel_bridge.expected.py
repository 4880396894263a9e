# ccmigrate-args: --every-rule
"""A bridge calling Python kernels from jitted code (jambax / numba4jax style, 2021): the
rule asks the primitive's abstract evaluation for the result shapes, builds one row-major
XLA shape per result through ``zip`` and ``map``, registers a C callback with XLA's CPU
custom-call signature for that signature of shapes and returns a custom call whose
result is always a tuple, of one result or several. The kernel, a callback defined in
the rule, reaches its outputs through the tuple's table of pointers."""
import ctypes
from functools import partial

import jax
import numpy as np
from jax.extend.mlir.dialects import stablehlo as hlo
from jax.core import ShapedArray
from jax.extend.core import Primitive
from jax.extend.mlir import ir


def _ccmigrate_tuple_lowering(call_target_name, **kwargs):
    """jax.ffi.ffi_lowering for a custom call XlaBuilder made with a tuple shape (added by ccmigrate): a tuple
    of one result stays a tuple, its element taken out for the rule, since on CPU a legacy kernel reaches its
    outputs through the tuple's table of pointers; several results are that tuple in XLA already."""

    def lowering(ctx, *operands):
        if len(ctx.avals_out) != 1:
            return jax.ffi.ffi_lowering(call_target_name, **kwargs)(ctx, *operands)
        (aval,) = ctx.avals_out
        result_types = [ir.TupleType.get_tuple([jax.interpreters.mlir.aval_to_ir_type(ctx.module_context, aval)])]
        (result,) = jax.ffi.ffi_lowering(call_target_name, result_types=result_types, **kwargs)(ctx, *operands)
        return [hlo.get_tuple_element(result, 0)]

    return lowering


def _ccmigrate_target_name(name):
    """Custom-call target names may be bytes in XlaBuilder code; MLIR wants str (added by ccmigrate)."""
    return name.decode() if isinstance(name, bytes) else name


_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p))
_KEEP = []
DEBUG = False


def _xla_shape_to_abstract(xla_shape):
    return ShapedArray(xla_shape.dimensions(), xla_shape.element_type())


def _create_xla_target_capsule(ptr):
    xla_capsule_magic = b"xla._CUSTOM_CALL_TARGET"
    ctypes.pythonapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    ctypes.pythonapi.PyCapsule_New.restype = ctypes.py_object
    return ctypes.pythonapi.PyCapsule_New(ptr, xla_capsule_magic, None)


def _view(pointer, shape, dtype):
    count = int(np.prod(shape, dtype=np.int64))
    buffer = (ctypes.c_char * (count * np.dtype(dtype).itemsize)).from_address(pointer)
    return np.frombuffer(buffer, dtype=dtype, count=count).reshape(shape)


def _xla_translation(kernel, abstract_eval_fn, ctx, *args):
    input_shapes = list(ctx.avals_in)
    output_abstract_arrays = abstract_eval_fn(*[jax.core.ShapedArray(shape.shape, shape.dtype) for shape in input_shapes])
    output_shapes = tuple(array.shape for array in output_abstract_arrays)
    output_dtypes = tuple(array.dtype for array in output_abstract_arrays)

    input_dtypes = tuple(shape.dtype for shape in input_shapes)
    input_dimensions = tuple(shape.shape for shape in input_shapes)

    @_CALLBACK
    def xla_custom_call_target(output_ptrs, input_ptrs):
        outputs = [_view(output_ptrs[i], s, d) for i, (s, d) in enumerate(zip(output_shapes, output_dtypes))]
        inputs = [_view(input_ptrs[i], s, d) for i, (s, d) in enumerate(zip(input_dimensions, input_dtypes))]
        kernel(outputs, inputs)

    _KEEP.append(xla_custom_call_target)
    target_name = f"py_kernel_{len(_KEEP)}".encode("ascii")
    capsule = _create_xla_target_capsule(ctypes.cast(xla_custom_call_target, ctypes.c_void_p).value)
    jax.ffi.register_ffi_target(target_name, capsule, platform="cpu", api_version=0)
    return _ccmigrate_tuple_lowering(
        _ccmigrate_target_name(target_name),
        api_version=1,
    )(ctx, *args)


def _xla_translation_gpu(kernel, abstract_eval_fn, ctx, *operands, **params):
    if DEBUG:
        print("Encoding the GPU variant of a Python kernel")
    raise RuntimeError("Python kernels run on the CPU only")


def python_to_jax(name, kernel, abstract_eval_fn):
    primitive = Primitive(name)
    primitive.multiple_results = True
    primitive.def_abstract_eval(abstract_eval_fn)
    jax.interpreters.mlir.register_lowering(primitive, partial(_xla_translation, kernel, abstract_eval_fn), platform="cpu")
    jax.interpreters.mlir.register_lowering(primitive, partial(_xla_translation_gpu, kernel, abstract_eval_fn), platform="gpu")
    return primitive.bind
