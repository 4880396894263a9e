"""A monkey patch of jax.lib.xla_bridge itself (alpa): the module is read as an object,
which has no public replacement, so it is reported and left as is."""
import jax


def override_get_backend(*args, **kwargs):
    return None


setattr(jax.lib.xla_bridge, "get_backend", override_get_backend)
