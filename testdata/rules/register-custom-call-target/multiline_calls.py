"""Calls split over lines keep their layout: new keywords go before the closing parenthesis."""
from jax.lib import xla_client

xla_client.register_custom_call_target(
    "_custom_call", object(), platform="cpu"
)
xla_client.register_custom_call_target(
    "_custom_call2",
    object(),  # a comment that stays on its own line
    platform="cpu",
)
xla_client.register_cpu_custom_call_target(
    "_custom_call3",
    object()
)
