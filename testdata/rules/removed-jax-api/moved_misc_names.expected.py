"""Smaller moves: checkpointing, tracer errors, numpy aliases, normalize, tree helpers."""
import jax
import jax.numpy as jnp
from jax import checkpoint as remat, core, nn
from jax.errors import TracerArrayConversionError
from jax.lax import with_sharding_constraint
from jax.tree_util import treedef_is_leaf


@remat
def block(x):
    try:
        return nn.standardize(jnp.round(x, 2)), jnp.vstack([x, x])
    except TracerArrayConversionError:
        return core.ShapedArray(x.shape, x.dtype)


def constrain(x, sharding):
    return with_sharding_constraint(x, sharding)


def is_array(x: jax.Array, tree) -> bool:
    return treedef_is_leaf(jax.tree_util.tree_structure(tree))
