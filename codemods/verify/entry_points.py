"""Entry points: what the verifier calls to make a module lower its custom calls.

Explicit entry points live in the target repository's ``pyproject.toml``::

    [tool.ccmigrate.verify]
    "mypkg.ops:scale" = ["f32[8,8]"]                       # positional arguments
    "mypkg.ops:matmul" = ["f32[4,8]", "f32[8,2]"]
    "mypkg.ops:norm" = { args = ["f32[16]"], kwargs = { eps = 1e-6, axis = 0 } }
    "mypkg.ops:both_modes" = [                               # several calls of one function
        { args = ["f32[8]"], kwargs = { mode = "fast" } },
        { args = ["f32[8]"], kwargs = { mode = "exact" } },
    ]

The key is ``"module:function"`` (``function`` may be ``Class.method``). An argument
written ``dtype[d0,d1,...]`` is an abstract array (``f32[]`` is a scalar); every other
TOML value (number, string, boolean, list, table) is passed to the function as it is,
as a static (non-traced) argument. dtypes: ``bool``, ``i8 i16 i32 i64``, ``u8 u16 u32
u64``, ``f16 bf16 f32 f64``, ``c64 c128``. The function is traced with ``jax.jit``
over the arrays and lowered once per platform.

This module only parses and validates the specs; it never imports jax.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from typing import Any, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - python 3.10
    import tomli as tomllib

DTYPES = {
    "bool": "bool", "pred": "bool",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "c64": "complex64", "c128": "complex128",
}
ARRAY_SPEC = re.compile(r"^\s*([a-z]+[0-9]*)\s*\[\s*([0-9,\s]*)\]\s*$")


class SpecError(ValueError):
    """An entry point in ``pyproject.toml`` that cannot be understood."""


@dataclasses.dataclass(frozen=True)
class ArraySpec:
    dtype: str
    shape: tuple[int, ...]

    def to_json(self) -> dict:
        return {"array": [self.dtype, list(self.shape)]}


@dataclasses.dataclass(frozen=True)
class EntryPoint:
    """One call the verifier makes: ``module:function(*args, **kwargs)``."""

    module: str
    function: str
    args: tuple = ()
    kwargs: tuple = ()  # (name, value) pairs, for hashability
    #: Where the spec came from, for messages.
    origin: str = ""

    @property
    def name(self) -> str:
        return f"{self.module}:{self.function}"

    def to_json(self) -> dict:
        return {
            "function": self.function,
            "args": [_value_json(a) for a in self.args],
            "kwargs": {k: _value_json(v) for k, v in self.kwargs},
        }


def _value_json(value: Any) -> Any:
    return value.to_json() if isinstance(value, ArraySpec) else {"static": value}


def parse_arg(value: Any) -> Any:
    """``"f32[8,8]"`` -> :class:`ArraySpec`; any other value is a static argument."""
    if isinstance(value, str):
        match = ARRAY_SPEC.match(value)
        if match and match.group(1) in DTYPES:
            dims = [d.strip() for d in match.group(2).split(",") if d.strip()]
            return ArraySpec(DTYPES[match.group(1)], tuple(int(d) for d in dims))
        if match:
            raise SpecError(f"unknown dtype {match.group(1)!r} in {value!r} (known: {', '.join(sorted(DTYPES))})")
    return value


def parse_entry_points(table: dict, origin: str = "") -> list[EntryPoint]:
    """The ``[tool.ccmigrate.verify]`` table -> entry points; raises :class:`SpecError`."""
    found: list[EntryPoint] = []
    for key, value in table.items():
        module, sep, function = key.partition(":")
        if not sep or not module or not function:
            raise SpecError(f"{origin}: entry point {key!r} must be written \"package.module:function\"")
        calls = value if isinstance(value, list) and value and all(isinstance(v, dict) for v in value) else [value]
        for call in calls:
            if isinstance(call, list):
                args, kwargs = call, {}
            elif isinstance(call, dict):
                unknown = set(call) - {"args", "kwargs"}
                if unknown:
                    raise SpecError(f"{origin}: entry point {key!r}: unknown key(s) {sorted(unknown)} (use args / kwargs)")
                args, kwargs = call.get("args", []), call.get("kwargs", {})
                if not isinstance(args, list) or not isinstance(kwargs, dict):
                    raise SpecError(f"{origin}: entry point {key!r}: args must be a list and kwargs a table")
            else:
                raise SpecError(f"{origin}: entry point {key!r}: expected a list of arguments or a table with args/kwargs")
            found.append(
                EntryPoint(
                    module,
                    function,
                    tuple(parse_arg(a) for a in args),
                    tuple((k, parse_arg(v)) for k, v in kwargs.items()),
                    origin,
                )
            )
    return found


def find_pyproject(path: str) -> Optional[str]:
    """The nearest ``pyproject.toml`` at or above ``path``."""
    directory = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def load_settings(pyproject: str) -> dict:
    """The ``[tool.ccmigrate.verify]`` table of one ``pyproject.toml`` ({} when absent)."""
    try:
        with open(pyproject, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{pyproject}: not valid TOML: {exc}") from exc
    table = data.get("tool", {}).get("ccmigrate", {}).get("verify", {})
    if not isinstance(table, dict):
        raise SpecError(f"{pyproject}: [tool.ccmigrate.verify] must be a table")
    return table
