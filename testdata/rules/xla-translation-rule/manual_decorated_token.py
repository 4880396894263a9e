"""An MPI-style barrier threading an XLA token through a one-element tuple result: the CPU
rule, wrapped by a decorator imported from elsewhere, is left for the user; the GPU rule
keeps the tuple result type and unpacks it as before."""
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

from mpi_ext.decorators import translation_rule_cpu
from mpi_ext.utils import xla_constant_uintptr

barrier_p = Primitive("barrier_mpi")


@translation_rule_cpu
def barrier_xla_encode_cpu(c, token, comm):
    sh = xla_client.Shape.tuple_shape([xla_client.Shape.token_shape()])
    out = xla_client.ops.CustomCall(
        c,
        b"mpi_barrier",
        operands=(xla_constant_uintptr(c, comm), token),
        shape=sh,
        has_side_effect=True,
    )
    return xla_client.ops.GetTupleElement(out, 0)


def barrier_xla_encode_gpu(c, token, comm):
    sh = xla_client.Shape.tuple_shape([xla_client.Shape.token_shape()])
    out = xla_client.ops.CustomCall(c, b"mpi_barrier", operands=(token,), shape=sh, opaque=comm, has_side_effect=True)
    return xla_client.ops.GetTupleElement(out, 0)


xla.backend_specific_translations["cpu"][barrier_p] = barrier_xla_encode_cpu
xla.backend_specific_translations["gpu"][barrier_p] = barrier_xla_encode_gpu
