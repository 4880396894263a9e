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
from jax.abstract_arrays import ShapedArray
from jax.interpreters import xla
from jax.lib import xla_client

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


def _xla_translation(kernel, abstract_eval_fn, xla_builder, *args):
    input_shapes = [xla_builder.get_shape(arg) for arg in args]
    output_abstract_arrays = abstract_eval_fn(*[_xla_shape_to_abstract(shape) for shape in input_shapes])
    output_shapes = tuple(array.shape for array in output_abstract_arrays)
    output_dtypes = tuple(array.dtype for array in output_abstract_arrays)
    layout_for_shape = lambda shape: range(len(shape) - 1, -1, -1)
    output_layouts = map(layout_for_shape, output_shapes)
    xla_output_shapes = [
        xla_client.Shape.array_shape(*arg)
        for arg in zip(output_dtypes, output_shapes, output_layouts)
    ]
    xla_output_shape = xla_client.Shape.tuple_shape(xla_output_shapes)

    input_dtypes = tuple(shape.element_type() for shape in input_shapes)
    input_dimensions = tuple(shape.dimensions() for shape in input_shapes)

    @_CALLBACK
    def xla_custom_call_target(output_ptrs, input_ptrs):
        outputs = [_view(output_ptrs[i], s, d) for i, (s, d) in enumerate(zip(output_shapes, output_dtypes))]
        inputs = [_view(input_ptrs[i], s, d) for i, (s, d) in enumerate(zip(input_dimensions, input_dtypes))]
        kernel(outputs, inputs)

    _KEEP.append(xla_custom_call_target)
    target_name = f"py_kernel_{len(_KEEP)}".encode("ascii")
    capsule = _create_xla_target_capsule(ctypes.cast(xla_custom_call_target, ctypes.c_void_p).value)
    xla_client.register_custom_call_target(target_name, capsule, "cpu")
    return xla_client.ops.CustomCallWithLayout(
        xla_builder,
        target_name,
        operands=args,
        shape_with_layout=xla_output_shape,
        operand_shapes_with_layout=input_shapes,
    )


def _xla_translation_gpu(kernel, abstract_eval_fn, xla_builder, *args):
    if DEBUG:
        print("Encoding the GPU variant of a Python kernel")
    raise RuntimeError("Python kernels run on the CPU only")


def python_to_jax(name, kernel, abstract_eval_fn):
    primitive = jax.core.Primitive(name)
    primitive.multiple_results = True
    primitive.def_abstract_eval(abstract_eval_fn)
    xla.backend_specific_translations["cpu"][primitive] = partial(_xla_translation, kernel, abstract_eval_fn)
    xla.backend_specific_translations["gpu"][primitive] = partial(_xla_translation_gpu, kernel, abstract_eval_fn)
    return primitive.bind
