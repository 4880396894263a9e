# ccmigrate-args: --select xla-client-import,register-custom-call-target,custom-call-api
"""A module alias whose every use the other rules rewrite (registrations, the api_version
enum of a rewritten custom call) goes, with an alias of its member nothing reads."""
import jax
from jax.interpreters import mlir

xla_client = jax.lib.xla_client
xops = xla_client.ops

for _name, _value in {}.items():
    xla_client.register_custom_call_target(_name, _value, platform="cpu")


def _lowering(ctx, x):
    return mlir.custom_call(
        "kernel",
        operands=[x],
        result_types=[x.type],
        backend_config=b"",
        api_version=xla_client.ops.CustomCallApiVersion.API_VERSION_STATUS_RETURNING,
    ).results
