"""An MPI binding's compatibility module (modelled on mpi4jax 0.3): its collectives carry an
effect so that jax stages them out in order and keeps them inside loops and custom_vjp."""
from functools import wraps

import jax
from jax._src import effects


def versiontuple(verstr):
    return tuple(int(v) for v in verstr.split(".")[:3] if v.isdigit())


jax_version = versiontuple(jax.__version__)

if jax_version >= versiontuple("0.3.15"):

    class MPIEffect:
        def __hash__(self):
            # a constant hash: one effect for every collective
            return hash("mpi")

    effect = MPIEffect()
    effects.lowerable_effects.add_type(MPIEffect)
    effects.control_flow_allowed_effects.add_type(MPIEffect)
    effects.custom_derivatives_allowed_effects.add_type(MPIEffect)

    def register_abstract_eval(primitive, func):
        @wraps(func)
        def effects_wrapper(*args, **kwargs):
            return func(*args, **kwargs), {effect}

        primitive.def_effectful_abstract_eval(effects_wrapper)

else:

    def register_abstract_eval(primitive, func):
        primitive.def_abstract_eval(func)
