# ccmigrate-args: --select backend-config,xla-translation-rule --unsafe-fixes
"""The opaque of an XlaBuilder custom call, reached through a module alias, is checked in the
same run that turns it into a backend_config; --unsafe-fixes wraps it once."""
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import mlir

from . import gpu_ops
import jax


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


scale_p = Primitive("scale")


def _scale_translation(ctx, x, *, n):
    shape = ctx.avals_in[0]
    layout = (0,)
    opaque = gpu_ops.scale_config(n)
    return jax.ffi.ffi_lowering(
        "scale_f32",
        api_version=1,
        backend_config=_ccmigrate_backend_config(opaque),
        operand_layouts=(layout,),
        result_layouts=[layout],
    )(ctx, x)


mlir.register_lowering(scale_p, _scale_translation, platform="gpu")
