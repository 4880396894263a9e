"""A package's compatibility module: other modules import these names from it."""
from jax.util import safe_map, safe_zip, partial
