"""A jaxpr-transform prototype built on jax's private modules, with a demo under
`if __name__ == "__main__":` that imports jax there. That import binds `jax` only when
the file runs as a script: imported as a module, the rewritten `jax.typeof` needs an
import of its own at module level."""
from jax._src import ad_util
from jax._src import core


def zero_tangents(primals, nonzeros):
    return [None if nz else ad_util.Zero.from_value(x) for nz, x in zip(nonzeros, primals)]


def avals_of(args):
    return [core.raise_to_shaped(core.get_aval(x)) for x in args]


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp

    print(avals_of([jnp.ones(3)]), jax.devices())
