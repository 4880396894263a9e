"""An MPI binding's compatibility module (modelled on mpi4jax 0.3): its collectives carry an
effect so that jax stages them out in order and keeps them inside loops and custom_vjp."""
from functools import wraps

import jax
from jax.interpreters import mlir
from jax._src.lax import control_flow as lcf
import jax._src.custom_derivatives as custom_derivatives


def versiontuple(verstr):
    return tuple(int(v) for v in verstr.split(".")[:3] if v.isdigit())


jax_version = versiontuple(jax.__version__)

if jax_version >= versiontuple("0.3.15"):

    class MPIEffect:
        def __hash__(self):
            # a constant hash: one effect for every collective
            return hash("mpi")

    effect = MPIEffect()
    mlir.lowerable_effects.add(effect)
    lcf.allowed_effects.add(effect)
    custom_derivatives.allowed_effects.add(MPIEffect())

    def register_abstract_eval(primitive, func):
        @wraps(func)
        def effects_wrapper(*args, **kwargs):
            return func(*args, **kwargs), {effect}

        primitive.def_effectful_abstract_eval(effects_wrapper)

else:

    def register_abstract_eval(primitive, func):
        primitive.def_abstract_eval(func)
