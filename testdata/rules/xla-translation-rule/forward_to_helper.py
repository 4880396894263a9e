"""Translation rules that only hand their builder to a module helper holding the custom
call (old jaxlib's linalg rules had this shape): the helper becomes the lowering rule's
body. ``_unpack_builder`` (old jax's ComputationBuilder wrapper) goes with the builder."""
import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

advect_p = Primitive("advect")
advect_p.multiple_results = True
advect_p.def_abstract_eval(lambda var, dx, dt: (core.ShapedArray(var.shape, var.dtype),) * 2)
scale_p = Primitive("scale")
scale_p.def_abstract_eval(lambda x, *, factor: core.ShapedArray(x.shape, x.dtype))


# Remove once old jax releases are no longer supported.
def _unpack_builder(c):
    # A ComputationBuilder wraps the XlaBuilder.
    return getattr(c, "_builder", c)


def _advect(builder, var, dx, dt):
    """Advection kernel."""
    builder = _unpack_builder(builder)
    a_shape = builder.get_shape(var)
    dtype = a_shape.element_type()
    dims = a_shape.dimensions()
    if dtype == np.dtype(np.float32):
        kernel = b"advect_f32"
    else:
        kernel = b"advect_f64"
    opaque = np.array(dims, np.int32).tobytes()
    out_shape = xla_client.Shape.array_shape(dtype, dims, (0, 1))
    x_shape = xla_client.Shape.array_shape(dtype, (dims[0],), (0,))
    scalar = xla_client.Shape.array_shape(dtype, (), ())
    return xla_client.ops.CustomCallWithLayout(
        builder, kernel,
        operands=(var, dx, dt),
        shape_with_layout=xla_client.Shape.tuple_shape([out_shape, out_shape]),
        operand_shapes_with_layout=(out_shape, x_shape, scalar),
        opaque=opaque)


def _advect_cpu_translation_rule(computation_builder, var, dx, dt):
    return _advect(computation_builder, var, dx, dt)


def _scale(c, x, *, factor):
    shape = xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,))
    return xla_client.ops.CustomCallWithLayout(
        c, b"scale_f32", operands=(x,), shape_with_layout=shape, operand_shapes_with_layout=(shape,),
        opaque=np.int32(factor).tobytes())


def _scale_translation(ctx, avals_in, avals_out, x, *, factor):
    return [_scale(ctx.builder, x, factor=factor)]


xla.backend_specific_translations["cpu"][advect_p] = _advect_cpu_translation_rule
xla.register_translation(scale_p, _scale_translation, platform="cpu")


def compat_entry():
    return advect_p.bind, (np.ones((3, 2), np.float32), np.ones(3, np.float32), np.float32(0.5))


def compat_entry_scale():
    return lambda x: scale_p.bind(x, factor=3), (np.ones(4, np.float32),)
