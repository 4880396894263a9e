"""2020 tutorial bindings on the ComputationBuilder that translation rules then received:
the custom call is the builder's own method, c.CustomCall with layouts (no api_version),
scalar f32 kernels registered per platform; a second rule reads its operand's builder
shape with c.GetShape for both layouts and is registered for every platform."""
import jax.numpy as jnp
import numpy as onp
from jax import core, xla
from jax.extend.core import Primitive
from jaxlib import xla_client

subtract_f32_p = Primitive("subtract_f32_p")
subtract_f32_p.def_impl(lambda x, y: onp.subtract(x, y))
subtract_f32_p.def_abstract_eval(lambda xs, ys: core.ShapedArray(xs.shape, xs.dtype))

square_f32_p = Primitive("square_f32_p")
square_f32_p.def_abstract_eval(lambda xs: core.ShapedArray(xs.shape, xs.dtype))


def subtract_float_32_xla_translation(c, xc, yc):
    """Given an XlaBuilder and XlaOps for each argument, return the XlaOp for the result."""
    return c.CustomCall(b'test_subtract_f32',
                        operands=(xc, yc),
                        shape_with_layout=xla_client.Shape.array_shape(jnp.dtype(jnp.float32), (), ()),
                        operand_shapes_with_layout=(
                            xla_client.Shape.array_shape(jnp.dtype(jnp.float32), (), ()),
                            xla_client.Shape.array_shape(jnp.dtype(jnp.float32), (), ())
                        ))


def square_f32_xla_translation(c, xc):
    return c.CustomCallWithLayout(b'square_f32', operands=(xc,),
                                  shape_with_layout=c.GetShape(xc), operand_shapes_with_layout=(c.GetShape(xc),),
                                  opaque=b'\x02\x00sq')


xla.backend_specific_translations['cpu'][subtract_f32_p] = subtract_float_32_xla_translation
xla.translations[square_f32_p] = square_f32_xla_translation


def compat_entry():
    return subtract_f32_p.bind, (onp.float32(1.25), onp.float32(0.5))


def compat_entry_square():
    return square_f32_p.bind, (onp.ones((2, 3), onp.float32),)
