"""A translation rule (ctx, avals_in, avals_out, ...) that still reads operand shapes back
from the builder, through an alias of ctx.builder, in the style of NUFFT bindings that
moved from builder rules to register_translation."""
import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax

nufft_p = Primitive("nufft1")
nufft_p.def_abstract_eval(lambda source, points, *, eps: ShapedArray(source.shape, source.dtype))


def translation_rule(ctx, source, points, *, eps):
    source_shape_info = ctx.avals_in[0]
    source_dtype = source_shape_info.dtype
    source_shape = source_shape_info.shape
    points_shape = ctx.avals_in[1].shape
    desc = np.array([eps, source_shape[0], points_shape[0]], dtype=np.float64).tobytes()
    layout = tuple(range(len(source_shape) - 1, -1, -1))
    return jax.ffi.ffi_lowering(
        "nufft1d1",
        api_version=1,
        operand_layouts=(
                (0,),
                layout,
                (0,),
            ),
        result_layouts=[layout],
    )(ctx.replace(avals_in=[ShapedArray(np.shape(np.frombuffer(desc, dtype=np.uint8)), np.asarray(np.frombuffer(desc, dtype=np.uint8)).dtype), ctx.avals_in[0], ctx.avals_in[1]]), mlir.ir_constant(np.asarray(np.frombuffer(desc, dtype=np.uint8))), source, points)


mlir.register_lowering(nufft_p, translation_rule, platform="cpu")


def compat_entry():
    return (lambda s, p: nufft_p.bind(s, p, eps=1e-6)), (np.ones((3, 4), np.complex64), np.ones(5, np.float32))
