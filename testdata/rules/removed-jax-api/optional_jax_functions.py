"""jax is an optional dependency: each function imports what it uses. A moved name is
imported from its new home where the old import was, and a call rewritten to a name of
jax is spelt through the function's own `import jax`, or imports jax inside the function:
never at module level."""
import numpy as np


def make_mesh(devices):
    import jax
    from jax.experimental.maps import Mesh
    return Mesh(np.array(devices), ("x",))


def zeros(x):
    from jax import lax
    return lax.zeros_like_array(x)


def add_zero(g, v):
    import jax
    from jax.interpreters import ad
    return ad.add_jaxvals(g, ad.Zero.from_value(v))


def typed_zero(v):
    """The symbolic zero of v's tangent."""
    from jax.interpreters import ad
    return ad.Zero.from_value(v)
