# ccmigrate-args: --every-rule
"""A scan helper that once printed through host_callback: the printing went, the import
stayed. `import jax.experimental.host_callback` fails on the jax that deleted the module,
yet it is also the only import binding `jax`, which the code reads: it becomes `import
jax`. Inside `debug_backend`, a function-level import of the deleted xla_bridge that
nothing reads goes too."""
import jax.numpy as jnp
import jax.experimental.host_callback


def cumulative(xs):
    def step(carry, x):
        return carry + x, carry + x

    _, ys = jax.lax.scan(step, jnp.zeros(()), xs)
    return ys


def debug_backend():
    import jax.lib.xla_bridge

    return jnp.zeros(()).device
