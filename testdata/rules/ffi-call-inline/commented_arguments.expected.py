"""A Gibbs sampler called through the inline ffi_call form, with comments between the
arguments: each comment stays with the argument it was written before."""
import jax
import jax.numpy as jnp
import numpy as np


def gibbs_sampler(rows, cols, Q, beta, n_iter):
    out_type = jax.ShapeDtypeStruct((rows, cols), jnp.int32)
    return jax.ffi.ffi_call(
        # The target name registered with register_ffi_target
        "gibbs_sampler",
        out_type,
        # No operands: only attributes
        vmap_method="sequential",
    )(
        # Attributes are NumPy scalars: the handler decodes their C++ types
        rows=np.int32(rows),
        cols=np.int32(cols),
        Q=np.int32(Q),  # number of labels
        beta=np.float32(beta),
        iter=np.int32(n_iter),
    )


def scaled(x, factor):
    return jax.ffi.ffi_call("scale",  # one operand
                            jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="sequential")(
                            x,
                            factor=np.float32(factor))
