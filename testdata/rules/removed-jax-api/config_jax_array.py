"""A lattice-Boltzmann example and its checkpoint helper from the jax.Array transition
(jax 0.4.1-0.4.6): they switch jax.Array on at import and branch on the option. jax 0.4.7
made it impossible to switch off, jax 0.4.14 removed it, so `update` raised
"Unrecognized config option: jax_array" at import. Setting it to True goes; reading it is
`True`; asking for False, which raised already, is reported."""
import jax
import jax.numpy as jnp
from jax import config

jax.config.update('jax_array', True)
config.update("jax_enable_x64", True)


def restore_args(arrays, legacy):
    if legacy:
        jax.config.update("jax_array", False)
    if jax.config.jax_array:
        return [jnp.asarray(a) for a in arrays]
    return list(arrays)
