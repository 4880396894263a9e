"""Compatibility guards serve older jax: left alone and not reported."""
try:
    from jax.core import ShapedArray
except ImportError:
    from jax.abstract_arrays import ShapedArray

try:
    from jax import config
except ImportError:
    from jax.config import config
