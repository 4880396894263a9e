"""A factory in the style of per-kernel binding generators: the rule is nested in the
factory, reads the kernel name and the calling convention from the closure, picks the
custom call in an if/elif/else, binds it to a name and returns that name; operands come
from a local tuple (spread after a constant), layouts from a list comprehension."""
import struct
from functools import partial

import numpy as np
from jax.core import ShapedArray
from jax.interpreters import mlir
from jax.extend.core import Primitive
import jax


def _ccmigrate_target_name(name):
    """Custom-call target names may be bytes in XlaBuilder code; MLIR wants str (added by ccmigrate)."""
    return name.decode() if isinstance(name, bytes) else name


def make_matmul(op_name, platform, descriptor=False):
    def matmul(spikes, grads):
        return _matmul_p.bind(spikes, grads, num_rows=4)

    def _abstract_eval(spikes, grads, *, num_rows):
        return ShapedArray((num_rows, grads.shape[-1]), grads.dtype)

    def _matmul_translation(ctx, spikes, grads, *, num_rows):
        spikes_aval, grads_aval = ctx.avals_in
        out_aval = ctx.avals_out[0]
        num_cols = out_aval.shape[1]
        operands_base = (spikes, grads)
        operand_shapes = [
            tuple(range(len(arr.shape) - 1, -1, -1))
            for arr in [spikes_aval, grads_aval]
        ]
        out_shape = tuple(range(len(out_aval.shape) - 1, -1, -1))

        if not descriptor:
            dims = np.asarray((num_rows, num_cols), dtype=np.uint64)
            shape_dims = (0,)
            op_ = jax.ffi.ffi_lowering(
                _ccmigrate_target_name(op_name.encode()),
                api_version=1,
                operand_layouts=(shape_dims, *operand_shapes),
                result_layouts=[out_shape],
            )(ctx.replace(avals_in=[ShapedArray(dims.shape, dims.dtype), ctx.avals_in[0], ctx.avals_in[1]]), mlir.ir_constant(np.asarray(dims)), *operands_base)
        elif platform in ("cpu", "gpu"):
            opaque = struct.pack("II", num_rows, num_cols)
            op_ = jax.ffi.ffi_lowering(
                _ccmigrate_target_name(op_name.encode()),
                api_version=1,
                backend_config=opaque,
                operand_layouts=operand_shapes,
                result_layouts=[out_shape],
            )(ctx, *operands_base)
        else:
            raise NotImplementedError(f"Unsupported platform {platform}")
        return op_

    _matmul_p = Primitive(op_name)
    _matmul_p.def_abstract_eval(_abstract_eval)
    mlir.register_lowering(_matmul_p, _matmul_translation, platform=platform)
    return matmul


def compat_entry():
    return make_matmul("spike_matmul_cpu", "cpu"), (np.ones(3, np.int32), np.ones((2, 5), np.float32))


def compat_entry_descriptor():
    return make_matmul("spike_matmul_desc", "cpu", descriptor=True), (np.ones(3, np.int32), np.ones((2, 5), np.float32))
