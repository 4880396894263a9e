"""A 2020 training script beside an extension: NumPy aliases jax.numpy dropped, its float
constants, and the example libraries that left jax.experimental."""
import jax
import jax.numpy as jnp
from jax import lax_linalg
from jax.experimental import optimizers, stax

init_random_params, predict = stax.serial(stax.Dense(8), stax.Relu, stax.Dense(1))
opt_init, opt_update, get_params = optimizers.adam(step_size=1e-3)


def log_likelihood(cov, x):
    chol = lax_linalg.cholesky(cov)
    n = jnp.product(jnp.array(x.shape))
    mask = jnp.where(jnp.isfinite(x), x, jnp.NINF)
    ok = jnp.alltrue(mask > jnp.NINF) & ~jnp.sometrue(jnp.isnan(x))
    return jnp.cumproduct(jnp.diag(chol))[-1], n, ok, jnp.PZERO
