"""backend_config values: how a captured one is described, and when two are the same.

The worker describes the Python object a site passed as ``backend_config`` (it cannot
send the object itself); the parent compares the description captured when lowering the
original code with the one captured from the rewritten code:

==============================  =====================================================
original passed                 preserved when the rewritten site passes
==============================  =====================================================
``str`` / ``bytes``             the same bytes
dict / list / number / bool /   bytes that decode as JSON to an equal value
dataclass / numpy values
protobuf message                its ``SerializeToString(deterministic=True)`` bytes
dict (typed FFI)                a dict of MLIR attributes printing the same as
                                ``mlir.ir_attribute`` of each original value
dict of MLIR attributes         a dict of attributes printing the same
``None``                        ``None`` or empty bytes
==============================  =====================================================
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Optional


def _plain(value: Any) -> Any:
    """JSON-ready copy of plain data (numpy values, dataclasses, sets included)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)

    def default(obj: Any) -> Any:
        if hasattr(obj, "tolist"):
            return obj.tolist()
        if isinstance(obj, (set, frozenset)):
            return sorted(obj)
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            return dataclasses.asdict(obj)
        raise TypeError(type(obj).__name__)

    return json.loads(json.dumps(value, default=default, allow_nan=True))


def describe(value: Any) -> dict:
    """A JSON-able description of a backend_config object (worker side, inside lowering)."""
    if value is None:
        return {"kind": "none"}
    if isinstance(value, str):
        return {"kind": "bytes", "hex": value.encode("utf-8", "surrogateescape").hex()}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"kind": "bytes", "hex": bytes(value).hex()}
    if hasattr(value, "SerializeToString") and not isinstance(value, type):
        try:
            return {"kind": "proto", "hex": value.SerializeToString(deterministic=True).hex()}
        except Exception as exc:  # noqa: BLE001 - a broken message is still described
            return {"kind": "repr", "repr": f"unserialisable message: {exc}"}
    if isinstance(value, dict) and value and all(_is_mlir(v) for v in value.values()):
        return {"kind": "attrs", "attrs": {str(k): str(v) for k, v in value.items()}}
    described: dict = {"kind": "value"}
    try:
        described["value"] = _plain(value)
    except (TypeError, ValueError):
        return {"kind": "repr", "repr": repr(value)[:500]}
    if isinstance(value, dict):
        described["attrs"] = _as_attrs(value)
    return described


def _is_mlir(value: Any) -> bool:
    return type(value).__module__.startswith(("jaxlib.mlir", "mlir"))


def _as_attrs(value: dict) -> Optional[dict]:
    """What typed FFI would make of a dict of plain values (needs an MLIR context)."""
    try:
        from jax.interpreters import mlir

        return {str(k): str(mlir.ir_attribute(v)) for k, v in value.items()}
    except Exception:  # noqa: BLE001 - outside a lowering context, or unsupported values
        return None


def preserved(original: dict, new: dict) -> Optional[bool]:
    """Whether ``new`` carries the same config as ``original``; ``None`` when unknowable."""
    kind = original.get("kind")
    if kind == "repr":
        return None
    if kind == "none":
        return new.get("kind") == "none" or (new.get("kind") == "bytes" and not new.get("hex"))
    if new.get("kind") == "attrs":
        if kind == "attrs":
            return original["attrs"] == new["attrs"]
        if kind == "value":
            return original.get("attrs") is not None and original["attrs"] == new["attrs"]
        return False
    if new.get("kind") != "bytes":
        return False
    data = bytes.fromhex(new["hex"])
    if kind in ("bytes", "proto"):
        return data == bytes.fromhex(original["hex"])
    if kind == "value":
        try:
            return json.loads(data) == original["value"]
        except ValueError:
            return False
    return None
