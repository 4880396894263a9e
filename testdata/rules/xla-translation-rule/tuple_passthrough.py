"""Identity primitives of the jax 0.2 era that tie values together for the tracer: their
builder rules packed the operands into one XLA tuple, which jax took apart again into
the primitive's results."""
from jax import core as jax_core
from jax.interpreters import xla
from jax.lib.xla_bridge import xla_client as xc

tie_all_p = jax_core.Primitive("tie_all")
tie_all_p.multiple_results = True
tie_all_p.def_impl(lambda *args: args)
tie_all_p.def_abstract_eval(lambda *avals: avals)
xla.translations[tie_all_p] = lambda c, *args: xc.ops.Tuple(c, args)

tie_pair_p = jax_core.Primitive("tie_pair")
tie_pair_p.multiple_results = True
tie_pair_p.def_abstract_eval(lambda x, y: (x, y))
xla.backend_specific_translations["cpu"][tie_pair_p] = lambda c, x, y, **params: xc.ops.Tuple(c, [x, y])
