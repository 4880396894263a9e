"""A 2021 nonlinear least-squares solver: jax.partial, which was functools.partial
re-exported by jax until 0.2.21, binds solver steps and jit options."""
import jax
import jax.numpy as jnp
from jax import jit
from functools import partial


@partial(jit, static_argnums=(1,))
def _residual(x, scale):
    return jnp.sum(x * scale)


class GaussNewtonSolver:
    max_iterations: int = 20

    def _step(self, graph, state):
        return state

    def solve(self, graph, state):
        return jax.lax.while_loop(
            cond_fun=lambda s: s.iterations < self.max_iterations,
            body_fun=partial(self._step, graph),
            init_val=state,
        )
