"""jax is an optional dependency: the target is registered by the function that first
needs it, which imports the builder module itself under an alias (`import
jax.lib.xla_client as xla_client`). The import goes with the last use it had (left
behind, it would fail when the function runs)."""
import ctypes

_registered = False


def _register_targets(library_path):
    global _registered
    import jax

    library = ctypes.CDLL(library_path)
    capsule = jax.ffi.pycapsule(library.kernel)
    jax.ffi.register_ffi_target("kernel", capsule, platform="cpu", api_version=0)
    _registered = True
