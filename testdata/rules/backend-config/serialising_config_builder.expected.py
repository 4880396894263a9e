# ccmigrate-args: --unsafe-fixes
"""A config builder of this module whose every return gives serialised text (modelled on a
cuDNN fused-attention binding: it assembles a dict and returns json.dumps of it) passes as
it is; a builder whose result is not visibly serialised still goes through the runtime
serialiser with --unsafe-fixes."""
import json

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


def create_backend_config(batch, heads, is_fwd):
    backend_config = {"batch": str(batch), "heads": str(heads)}
    if is_fwd:
        backend_config = {**backend_config, "mode": "fwd"}
    backend_config = json.dumps(backend_config)
    return backend_config


def proto_config(scale):
    if scale is None:
        return None
    return make_proto(scale).SerializeToString()


def half_serialised(batch):
    config = json.dumps({"batch": batch})
    config = config.replace('"', "'")
    print("built")
    return config


def dict_config(batch):
    return {"batch": batch}


def _fwd_lowering(ctx, q, k):
    t = mlir.aval_to_ir_type(ctx.avals_out[0])
    backend_config = create_backend_config(2, 4, True)
    mlir.custom_call("fmha_fwd", result_types=[t], operands=[q, k], backend_config=backend_config)
    mlir.custom_call("fmha_scale", result_types=[t], operands=[q], backend_config=proto_config(0.5))
    mlir.custom_call("fmha_half", result_types=[t], operands=[q], backend_config=_ccmigrate_backend_config(half_serialised(2)))
    return mlir.custom_call("fmha_dict", result_types=[t], operands=[q], backend_config=_ccmigrate_backend_config(dict_config(2)))
