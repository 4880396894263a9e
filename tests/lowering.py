"""Lower functions with the real jax and read the custom calls they emit.

Attributes are read through the MLIR Python API, so a test compares the exact bytes
that reach XLA rather than a printed rendering of them.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

import jax
import jax.numpy as jnp
from jax._src.lib.mlir import ir


@dataclasses.dataclass
class EmittedCall:
    target: str
    api_version: int
    #: Opaque config (api 1-3) as bytes, or ``None`` for typed FFI.
    backend_config: Optional[bytes]
    #: Typed FFI attributes (api 4) as ``{name: attribute}``, else ``None``.
    attributes: Optional[dict[str, Any]]
    operand_layouts: Optional[list[list[int]]]
    result_layouts: Optional[list[list[int]]]


def lower(fn, *shapes, platform: str = "cpu", dtype=jnp.float32) -> ir.Module:
    args = [jax.ShapeDtypeStruct(shape, dtype) for shape in shapes]
    return jax.jit(fn).trace(*args).lower(lowering_platforms=(platform,)).compiler_ir("stablehlo")


def _walk(op):
    yield op
    for region in op.regions:
        for block in region:
            for child in block.operations:
                yield from _walk(child.operation)


def _layouts(attrs, name) -> Optional[list[list[int]]]:
    if name not in attrs:
        return None
    return [list(ir.DenseIntElementsAttr(a)) for a in ir.ArrayAttr(attrs[name])]


def custom_calls(module: ir.Module) -> list[EmittedCall]:
    calls = []
    with module.context:
        for op in _walk(module.operation):
            if op.name != "stablehlo.custom_call":
                continue
            attrs = op.attributes
            api = ir.IntegerAttr(attrs["api_version"]).value if "api_version" in attrs else 1
            typed = None
            if "mhlo.backend_config" in attrs:
                # jax encodes typed FFI as api_version 1 plus this dictionary.
                api = 4
                d = ir.DictAttr(attrs["mhlo.backend_config"])
                typed = {d[i].name: d[i].attr for i in range(len(d))}
            config = None
            if "backend_config" in attrs:
                raw = attrs["backend_config"]
                if isinstance(raw, ir.StringAttr):
                    config = ir.StringAttr(raw).value_bytes
                else:
                    d = ir.DictAttr(raw)
                    typed = {d[i].name: d[i].attr for i in range(len(d))}
            calls.append(
                EmittedCall(
                    target=ir.StringAttr(attrs["call_target_name"]).value,
                    api_version=api,
                    backend_config=config if typed is None else None,
                    attributes=typed,
                    operand_layouts=_layouts(attrs, "operand_layouts"),
                    result_layouts=_layouts(attrs, "result_layouts"),
                )
            )
    return calls
