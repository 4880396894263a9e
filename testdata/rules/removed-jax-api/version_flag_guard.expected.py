"""Compatibility flags bound once to a jax version test (modelled on quax's _compat.py): the
branch the target jax takes is ordinary code and is migrated; the other branch serves the
releases the flag tells apart and is left as it is."""
from importlib.metadata import version
from typing import Final

import jax
from packaging.version import Version
import jax.tree_util
from jax.tree_util import tree_leaves

JAX_VERSION: Final = Version(version("jax"))
JAX_GE_0_8_2: Final = JAX_VERSION >= Version("0.8.2")
JAX_OLD = jax.__version_info__ < (0, 4, 36)

if JAX_GE_0_8_2:
    typeof = jax.typeof
    tree_map = jax.tree_util.tree_map
else:
    typeof = jax.core.get_aval

if not JAX_OLD:
    leaves = tree_leaves
else:
    leaves = jax.tree_util.tree_leaves

to_shaped = jax.core.raise_to_shaped if JAX_OLD else (lambda aval: aval)
