"""jax is an optional dependency: the target is registered by the function that first
needs it, which imports the builder module itself under an alias (`import
jax.lib.xla_client as xla_client`). The import goes with the last use it had (left
behind, it would fail when the function runs)."""
import ctypes

_registered = False


def _register_targets(library_path):
    global _registered
    import jax
    import jax.lib.xla_client as xla_client

    library = ctypes.CDLL(library_path)
    capsule = jax.ffi.pycapsule(library.kernel)
    xla_client.register_custom_call_target(b"kernel", capsule, platform="cpu")
    _registered = True
