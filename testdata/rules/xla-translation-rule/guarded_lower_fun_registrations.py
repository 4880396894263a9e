"""Translation registrations kept for jax < 0.4.29 behind `hasattr(xla, "lower_fun")`
(equinox style): one primitive also has an MLIR lowering for every release (nothing to
migrate), the other has none (register mlir.lower_fun outside the branch)."""
import jax
from jax.interpreters import mlir, xla

_identity = lambda x: x
p = jax.extend.core.Primitive("p")
q = jax.extend.core.Primitive("q")
if hasattr(xla, "lower_fun"):
    xla.register_translation(p, xla.lower_fun(_identity, multiple_results=False, new_style=True))
mlir.register_lowering(p, mlir.lower_fun(_identity, multiple_results=False))
if hasattr(xla, "lower_fun"):
    xla.register_translation(q, xla.lower_fun(_identity, multiple_results=False, new_style=True))
