"""Calls split over lines keep their layout: new keywords go before the closing parenthesis."""
import jax

jax.ffi.register_ffi_target(
    "_custom_call", object(), platform="cpu", api_version=0
)
jax.ffi.register_ffi_target(
    "_custom_call2",
    object(),  # a comment that stays on its own line
    platform="cpu",
    api_version=0,
)
jax.ffi.register_ffi_target(
    "_custom_call3",
    object(), platform="cpu", api_version=0
)
