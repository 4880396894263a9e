"""Identity primitives of the jax 0.2 era that tie values together for the tracer: their
builder rules packed the operands into one XLA tuple, which jax took apart again into
the primitive's results."""
from jax import core as jax_core
from jax.interpreters import mlir

tie_all_p = jax_core.Primitive("tie_all")
tie_all_p.multiple_results = True
tie_all_p.def_impl(lambda *args: args)
tie_all_p.def_abstract_eval(lambda *avals: avals)
mlir.register_lowering(tie_all_p, lambda ctx, *args: args)

tie_pair_p = jax_core.Primitive("tie_pair")
tie_pair_p.multiple_results = True
tie_pair_p.def_abstract_eval(lambda x, y: (x, y))
mlir.register_lowering(tie_pair_p, lambda ctx, x, y, **params: [x, y], platform="cpu")
