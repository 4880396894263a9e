# ccmigrate-args: --annotate
"""A branch for the releases before the change: reported, not rewritten."""
import jax
from jax.interpreters import mlir

if jax.__version_info__ >= (0, 4, 31):
    def token_types():
        return [mlir.token_type()]
else:
    def token_types():
        # TODO(ccmigrate): [token-type] mlir.token_type() returns one ir.Type since jax 0.4.31 (a one-element list up to 0.4.30); this call is inside the compatibility guard `if jax >= 0.4.31` and left as is: on jax >= 0.4.31 use `[token_type()]` where the list is meant
        return [*mlir.token_type()]
