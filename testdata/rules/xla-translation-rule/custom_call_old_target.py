# ccmigrate-args: --target-jax 0.6.2 --unsafe-fixes
"""ops.CustomCall for a jax 0.6 target: ffi_lowering cannot skip layouts before jax 0.7.0,
so the op gains row-major layouts (XLA's default, but not the same op): unsafe."""
import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

allreduce_p = Primitive("allreduce")
allreduce_p.def_abstract_eval(lambda x, *, op: core.ShapedArray(x.shape, x.dtype))


def allreduce(x):
    return allreduce_p.bind(x, op=1)


def _allreduce_translation(c, x, *, op):
    out = xla_client.Shape.array_shape(np.dtype(np.float32), (5,))
    return xla_client.ops.CustomCall(
        c,
        b"mpi_allreduce",
        operands=(x,),
        shape=out,
        opaque=bytes([op, 0, 0, 0]),
        has_side_effect=True,
    )


xla.backend_specific_translations["cpu"][allreduce_p] = _allreduce_translation


def compat_entry():
    return allreduce, (np.ones(5, np.float32),)
