"""Modules using a match statement are analysed like any other."""
import jax


def device_kind(kind):
    match kind:
        case "default":
            return jax.default_backend()
        case _:
            return kind
