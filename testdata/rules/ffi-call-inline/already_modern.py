"""The current form needs nothing."""
import jax


def f(x):
    call = jax.ffi.ffi_call("f", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="sequential")
    return call(x)
