"""A dataclass instance as backend_config, which no jax release lowered: make
test-compat checks that the rewrite emits the JSON of its fields declared in compat.toml."""
import dataclasses

import numpy as np

from jax._src.interpreters import mlir
from jax.extend.core import Primitive


@dataclasses.dataclass(frozen=True)
class TileConfig:
    tile: int = 128
    mode: str = "fast"


tile_p = Primitive("ccm_tile")
tile_p.def_abstract_eval(lambda x: x)


def _tile_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return mlir.custom_call("ccm_tile_f32", result_types=[out_type], operands=[x],
                            backend_config=TileConfig(tile=64), api_version=3).results


mlir.register_lowering(tile_p, _tile_lowering, platform="cpu")


def tile(x):
    return tile_p.bind(x)


def compat_entry():
    return tile, (np.ones((2, 3), np.float32),)
