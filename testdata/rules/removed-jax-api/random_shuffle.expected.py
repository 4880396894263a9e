"""A differentially private logistic regression's data loader (2020): each epoch shuffles
the examples with jax.random.shuffle, deprecated with "Use jax.random.permutation with
independent=True" and gone by jax 0.5.3. permutation with independent=True ran the same
shuffle."""
import jax
import jax.numpy as jnp
from jax.random import permutation


def epoch_batches(key, xs, ys, batch_size):
    order = permutation(key, jnp.arange(xs.shape[0]), independent=True)
    for start in range(0, xs.shape[0], batch_size):
        idx = order[start:start + batch_size]
        yield xs[idx], ys[idx]


def shuffled_columns(key, features):
    return permutation(key, features, axis=1, independent=True)
