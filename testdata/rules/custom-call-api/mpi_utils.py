"""Re-exports the custom-call builder for the MPI bindings (mpi4jax style). The import is
behind a version test; call sites elsewhere are migrated, this module is left as is."""
import jaxlib


def versiontuple(text):
    return tuple(int(part) for part in text.split(".")[:3])


if versiontuple(jaxlib.__version__) >= (0, 4, 2):
    from jaxlib.hlo_helpers import custom_call as hlo_custom_call  # noqa: F401
else:
    from jaxlib.mhlo_helpers import custom_call as hlo_custom_call  # noqa: F401
