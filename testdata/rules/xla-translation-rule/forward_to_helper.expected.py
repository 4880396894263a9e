"""Translation rules that only hand their builder to a module helper holding the custom
call (old jaxlib's linalg rules had this shape): the helper becomes the lowering rule's
body. ``_unpack_builder`` (old jax's ComputationBuilder wrapper) goes with the builder."""
import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax


def _ccmigrate_target_name(name):
    """Custom-call target names may be bytes in XlaBuilder code; MLIR wants str (added by ccmigrate)."""
    return name.decode() if isinstance(name, bytes) else name


advect_p = Primitive("advect")
advect_p.multiple_results = True
advect_p.def_abstract_eval(lambda var, dx, dt: (core.ShapedArray(var.shape, var.dtype),) * 2)
scale_p = Primitive("scale")
scale_p.def_abstract_eval(lambda x, *, factor: core.ShapedArray(x.shape, x.dtype))


def _advect(ctx, var, dx, dt):
    """Advection kernel."""
    a_shape = ctx.avals_in[0]
    dtype = a_shape.dtype
    dims = a_shape.shape
    if dtype == np.dtype(np.float32):
        kernel = b"advect_f32"
    else:
        kernel = b"advect_f64"
    opaque = np.array(dims, np.int32).tobytes()
    out_shape = (0, 1)
    x_shape = (0,)
    scalar = ()
    return jax.ffi.ffi_lowering(
        _ccmigrate_target_name(kernel),
        api_version=1,
        backend_config=opaque,
        operand_layouts=(out_shape, x_shape, scalar),
        result_layouts=[out_shape, out_shape],
    )(ctx, var, dx, dt)


def _advect_cpu_translation_rule(ctx, var, dx, dt):
    return _advect(ctx, var, dx, dt)


def _scale(ctx, x, *, factor):
    shape = (0,)
    return jax.ffi.ffi_lowering(
        "scale_f32",
        api_version=1,
        backend_config=np.int32(factor).tobytes(),
        operand_layouts=(shape,),
        result_layouts=[shape],
    )(ctx, x)


def _scale_translation(ctx, x, *, factor):
    return _scale(ctx, x, factor=factor)


mlir.register_lowering(advect_p, _advect_cpu_translation_rule, platform="cpu")
mlir.register_lowering(scale_p, _scale_translation, platform="cpu")


def compat_entry():
    return advect_p.bind, (np.ones((3, 2), np.float32), np.ones(3, np.float32), np.float32(0.5))


def compat_entry_scale():
    return lambda x: scale_p.bind(x, factor=3), (np.ones(4, np.float32),)
