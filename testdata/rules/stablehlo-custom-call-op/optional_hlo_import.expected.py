"""The dialect imported behind a guard whose except clause only sets it to None: that is no
fallback to another spelling (on jax 0.6.0+ the import fails and hlo is None), so the
import moves to the stablehlo dialect like an unguarded one."""
from jax.interpreters import mlir

try:
    from jax.extend.mlir.dialects import stablehlo as hlo
except ImportError:
    hlo = None


def _lowering(ctx, x):
    return hlo.AddOp(x, x).results
