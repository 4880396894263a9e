"""Kernel configurations shared by several lowering rules."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class TileConfig:
    tile: int = 128
    unroll: int = 4
    mode: str = "fast"
