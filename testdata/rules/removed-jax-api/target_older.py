# ccmigrate-args: --target-jax 0.4.20
"""An older target: jax.core.Token is still there and nothing is checked against 0.10.2."""
from jax.core import Token
import jax

x = jax.dlpack.to_dlpack
