# ccmigrate-args: --target-jax 0.4.28
"""On jax 0.4.28 translation rules still work: nothing to change."""
from jax.interpreters import xla
from jax.lib import xla_client


def _rule(c, x):
    return xla_client.ops.CustomCall(c, b"f", operands=(x,), shape=xla_client.Shape.array_shape(np.dtype(np.float32), (2,)))


xla.backend_specific_translations["cpu"][f_p] = _rule
