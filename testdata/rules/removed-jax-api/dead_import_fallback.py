"""Module-level import fallbacks (jax-chacha-prng style). The first fails on every branch of
the target jax (the name left jaxlib.xla_client, jax.xla is gone, then it raises) and binds a
name nothing reads: it goes whole, and the module imports again. The second fails the same
way but its name is used: reported. The third ends in a fallback that works, and the fourth
runs a configuration call before its failing import: both left alone."""
import jax
import numpy as np

# importing XlaOp
try:
    # post jax v0.2.13 location
    from jaxlib.xla_client import XlaOp  # type: ignore
except (AttributeError, ImportError):  # pragma: no cover
    try:
        # pre jax v0.2.13 location
        XlaOp = jax.xla.XlaOp  # type: ignore
    except (AttributeError, ImportError):  # pragma: no cover
        raise ImportError("Cannot import XlaOp. "
                          "You are probably using an incompatible version of jax.")

try:
    from jaxlib.xla_client import XlaBuilder
except ImportError:
    raise ImportError("Cannot import XlaBuilder")

try:
    from jaxlib.xla_client import Shape
except ImportError:
    Shape = None

try:
    jax.config.update("jax_enable_x64", True)
    from jaxlib.xla_client import XlaComputation
except ImportError:
    raise ImportError("Cannot import XlaComputation")


def builder_of(name):
    return XlaBuilder(name) if Shape is not None else np.zeros(0)
