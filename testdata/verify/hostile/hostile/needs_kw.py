"""A primitive whose lowering needs a keyword no automatic probe can guess."""
from jax._src.interpreters import mlir
from jax.extend.core import Primitive
from jax.interpreters import mlir as mlir_public

tile_p = Primitive("hostile_tile")
tile_p.def_abstract_eval(lambda x, *, tile: x)


def _lowering(ctx, x, *, tile):
    out = mlir_public.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return mlir.custom_call("tile_target", result_types=[out], operands=[x], backend_config=str(tile)).results


mlir_public.register_lowering(tile_p, _lowering)


def tiled(x, *, tile):
    return tile_p.bind(x, tile=tile)
