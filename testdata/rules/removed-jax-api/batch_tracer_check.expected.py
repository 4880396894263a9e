# ccmigrate-args: --unsafe-fixes
"""A JVP rule that looks inside a vmapped tangent (`type(t) is batching.BatchTracer`):
jax.interpreters.batching no longer exports the class; its private home is offered, as
an unsafe fix, and the public module's import, no longer read, goes."""
import numpy as onp
from jax.interpreters import ad
from jax._src.interpreters.batching import BatchTracer


def _scale_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    if dx is ad.Zero:
        return x * 2.0, dx
    if type(dx) is BatchTracer:
        nonzero = onp.any(dx.val != 0)
    else:
        nonzero = onp.any(dx != 0)
    return x * 2.0, dx * 2.0 if nonzero else dx


def _is_batched(t):
    return isinstance(t, BatchTracer)
