"""The private _optimization_barrier of jax's ring-attention bridges: jax made it public as
jax.lax.optimization_barrier (0.4.32), which flattens, binds and unflattens the same way."""
import jax


def ring(f, acc, steps):
    for _ in range(steps):
        acc, _ = f(acc, None)
        acc = jax.lax.optimization_barrier(acc)
    return acc


barriers = list(map(jax.lax.optimization_barrier, [(1.0, 2.0)]))
