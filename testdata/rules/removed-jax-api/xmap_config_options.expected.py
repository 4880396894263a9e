"""A flash-attention port of the xmap era sets xmap's lowering options at import; the
installed jax rejects options it no longer has, so the module failed to import before any
of its code ran. The two xmap options go, and the import only they used."""
import jax

# xmap needs the SPMD lowering.
jax.config.update("jax_enable_x64", True)
