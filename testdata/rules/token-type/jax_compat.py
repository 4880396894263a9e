"""Compatibility shims of an MPI binding (mpi4jax style): the token type and the custom-call
builder are re-exported under version tests. No call here; call sites elsewhere are migrated."""
import jax
import jaxlib


def versiontuple(text):
    return tuple(int(part) for part in text.split(".")[:3])


if versiontuple(jaxlib.__version__) >= (0, 4, 2):
    from jaxlib.hlo_helpers import custom_call as hlo_custom_call  # noqa: F401
else:
    from jaxlib.mhlo_helpers import custom_call as hlo_custom_call  # noqa: F401


if versiontuple(jax.__version__) >= (0, 4, 4):
    from jax._src.interpreters.mlir import token_type  # noqa: F401
else:
    from jax.interpreters.mlir import token_type  # noqa: F401
