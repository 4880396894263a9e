# ccmigrate-args: --annotate
"""A branch for the releases before the change: reported, not rewritten."""
import jax
from jax.interpreters import mlir

if jax.__version_info__ >= (0, 4, 31):
    def token_types():
        return [mlir.token_type()]
else:
    def token_types():
        return [*mlir.token_type()]
