# ccmigrate-args: --select xla-client-import,register-custom-call-target,custom-call-api
"""A module alias whose every use the other rules rewrite (registrations, the api_version
enum of a rewritten custom call) goes, with an alias of its member nothing reads."""
import jax

for _name, _value in {}.items():
    jax.ffi.register_ffi_target(_name, _value, platform="cpu", api_version=0)


def _lowering(ctx, x):
    return jax.ffi.ffi_lowering(
        "kernel",
        result_types=[x.type],
        backend_config=b"",
        api_version=2,
        skip_ffi_layout_processing=True,
    )(ctx, x)
