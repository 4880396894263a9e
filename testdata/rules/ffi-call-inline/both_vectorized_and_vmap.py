"""Both vectorized= and vmap_method=: jax rejected this too, so it is left for the author."""
import jax


def f(x):
    return jax.ffi.ffi_call("f", jax.ShapeDtypeStruct(x.shape, x.dtype), x, vectorized=True, vmap_method="sequential")
