"""Smaller moves: checkpointing, tracer errors, numpy aliases, normalize, tree helpers."""
import jax
import jax.numpy as jnp
from jax import core, nn
from jax.ad_checkpoint import remat
from jax.experimental.pjit import with_sharding_constraint
from jax.interpreters import batching, xla


@remat
def block(x):
    try:
        return nn.normalize(jnp.round_(x, 2)), jnp.row_stack([x, x])
    except core.TracerArrayConversionError:
        return xla.ShapedArray(x.shape, x.dtype)


def constrain(x, sharding):
    return with_sharding_constraint(x, sharding)


def is_array(x: batching.Array, tree) -> bool:
    return jax.treedef_is_leaf(jax.tree_util.tree_structure(tree))
