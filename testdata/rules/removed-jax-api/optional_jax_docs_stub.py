"""A finite-element package's jax bridge: jax is optional, and when it is missing while the
docs build, a stand-in namespace takes its name so that `@jax.custom_vjp` still decorates.
That stand-in exists only where the import failed; everywhere else `jax` is jax, and its
removed names are migrated as in any module."""
import os

try:
    import jax
except ImportError:
    if "PACKAGE_BUILDING_DOCS" in os.environ:
        from types import SimpleNamespace

        jax = SimpleNamespace()
        jax.custom_vjp = lambda f, **kwargs: f
    else:
        raise ImportError("jax is required for the jax operator")


@jax.custom_vjp
def to_numpy(x):
    if isinstance(x, jax.core.Tracer):
        x = jax.core.get_aval(x)
    return x
