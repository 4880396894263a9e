"""Dataclass instances become JSON of asdict; protobuf messages their deterministic bytes."""
import dataclasses

from google.protobuf import struct_pb2
from jax._src.interpreters import mlir

from . import kernel_pb2


@dataclasses.dataclass(frozen=True)
class TileConfig:
    tile: int = 128
    mode: str = "fast"


def lower(ctx, x, *, tile):
    t = mlir.aval_to_ir_type(ctx.avals_out[0])
    cfg = TileConfig(tile=tile)
    mlir.custom_call("a", result_types=[t], operands=[x], backend_config=cfg)
    mlir.custom_call("b", result_types=[t], operands=[x], backend_config=TileConfig())
    msg = kernel_pb2.KernelConfig(alpha=2.0)
    mlir.custom_call("c", result_types=[t], operands=[x], backend_config=msg)
    return mlir.custom_call("d", result_types=[t], operands=[x], backend_config=struct_pb2.Value(number_value=1.0))
