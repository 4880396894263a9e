"""2020 tutorial bindings on the ComputationBuilder that translation rules then received:
the custom call is the builder's own method, c.CustomCall with layouts (no api_version),
scalar f32 kernels registered per platform; a second rule reads its operand's builder
shape with c.GetShape for both layouts and is registered for every platform."""
import jax.numpy as jnp
import numpy as onp
from jax import core
from jax.extend.core import Primitive
import jax
from jax.interpreters import mlir

subtract_f32_p = Primitive("subtract_f32_p")
subtract_f32_p.def_impl(lambda x, y: onp.subtract(x, y))
subtract_f32_p.def_abstract_eval(lambda xs, ys: core.ShapedArray(xs.shape, xs.dtype))

square_f32_p = Primitive("square_f32_p")
square_f32_p.def_abstract_eval(lambda xs: core.ShapedArray(xs.shape, xs.dtype))


def subtract_float_32_xla_translation(ctx, xc, yc):
    """Given an XlaBuilder and XlaOps for each argument, return the XlaOp for the result."""
    return jax.ffi.ffi_lowering(
        'test_subtract_f32',
        api_version=1,
        operand_layouts=(
                            (),
                            ()
                        ),
        result_layouts=[()],
    )(ctx, xc, yc)


def square_f32_xla_translation(ctx, xc):
    return jax.ffi.ffi_lowering(
        'square_f32',
        api_version=1,
        backend_config=b'\x02\x00sq',
        operand_layouts=(None,),
        result_layouts=[None],
    )(ctx, xc)


mlir.register_lowering(subtract_f32_p, subtract_float_32_xla_translation, platform='cpu')
mlir.register_lowering(square_f32_p, square_f32_xla_translation)


def compat_entry():
    return subtract_f32_p.bind, (onp.float32(1.25), onp.float32(0.5))


def compat_entry_square():
    return square_f32_p.bind, (onp.ones((2, 3), onp.float32),)
