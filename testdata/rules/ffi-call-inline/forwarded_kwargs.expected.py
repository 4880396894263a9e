# ccmigrate-args: --unsafe-fixes
"""**kwargs forwarded to the inline form become attributes: unsafe, review."""
import jax


def call(name, x, **attrs):
    return jax.ffi.ffi_call(name, jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="sequential")(x, **attrs)
