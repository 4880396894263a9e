"""A flash-attention port of the xmap era sets xmap's lowering options at import; the
installed jax rejects options it no longer has, so the module failed to import before any
of its code ran. The two xmap options go, and the import only they used."""
import jax
from jax import config

# xmap needs the SPMD lowering.
jax.config.update("experimental_xmap_spmd_lowering", True)
config.update("experimental_xmap_spmd_lowering_manual", True)
jax.config.update("jax_enable_x64", True)
