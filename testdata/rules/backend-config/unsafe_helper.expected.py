# ccmigrate-args: --unsafe-fixes
"""With --unsafe-fixes, values of unknown type go through a runtime serialiser added once."""
from jax._src.interpreters import mlir


def _ccmigrate_backend_config(value):
    """Serialise a custom-call backend_config to the str/bytes jax accepts (added by ccmigrate)."""
    import dataclasses
    import json

    if value is None or isinstance(value, (str, bytes)):
        return value
    if hasattr(value, "SerializeToString"):
        return value.SerializeToString(deterministic=True)
    if isinstance(value, dict) and value and all(type(v).__module__.startswith("jaxlib.mlir") for v in value.values()):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)

    def _default(obj):
        if hasattr(obj, "tolist"):
            return obj.tolist()
        if isinstance(obj, (set, frozenset)):
            return sorted(obj)
        raise TypeError(f"backend_config value of type {type(obj).__name__} is not JSON serialisable")

    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_default)


def lower(ctx, x, *, config):
    t = mlir.aval_to_ir_type(ctx.avals_out[0])
    mlir.custom_call("a", result_types=[t], operands=[x], backend_config=_ccmigrate_backend_config(config))
    return mlir.custom_call("b", result_types=[t], operands=[x], backend_config=_ccmigrate_backend_config(config.opaque))
