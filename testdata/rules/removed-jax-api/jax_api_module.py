"""Rigid-body dynamics kernels importing transforms from the long-gone jax.api module
(removed in 0.2.21; its functions were aliases of the jax.* ones, where they move, and its
pytree functions of jax.tree_util's). A private helper read through it (`_std_basis`) has
no public home: it is reported."""
import jax
from jax.api import jit, vmap
from jax.api import jacfwd, device_put


@jit
def kkt(x, z):
    return x * z


def sensitivities(x_star, z_star):
    dkkt2dx = jacfwd(kkt, argnums=0)(x_star, z_star)
    batched = vmap(kkt)(device_put(x_star), z_star)
    return dkkt2dx, batched, jax.api.grad(lambda x: kkt(x, z_star).sum())(x_star)


def jacobian_columns(x_star, z_star):
    basis = jax.api._std_basis(x_star)
    return jax.api.tree_map(lambda b: kkt(b, z_star), basis)
