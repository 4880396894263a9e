from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

barrier_p = Primitive("barrier")


def _barrier_translation(c, token):
    sh = xla_client.Shape.tuple_shape([xla_client.Shape.token_shape()])
    return xla_client.ops.CustomCall(c, b"barrier", operands=(token,), shape=sh)


xla.backend_specific_translations["cpu"][barrier_p] = _barrier_translation
