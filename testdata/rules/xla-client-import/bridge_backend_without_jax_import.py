"""An event-sum kernel's platform check (BrainPy style) in a module that imports jax only
as jax.numpy: `import jax` would not load jax.extend.backend, so the module is imported."""
import jax.numpy as jnp
from jax.lib import xla_bridge


def event_sum(events, indices, indptr, values):
    if xla_bridge.get_backend().platform == "cpu":
        return jnp.zeros(indptr.shape[0] - 1).at[indices].add(values * events)
    raise NotImplementedError
