"""A tile-placement primitive for one accelerator (tessellate-ipu, 2022): its rule for that
backend lives elsewhere; on CPU and GPU the builder rule hands its operand back unchanged,
a no-op. jax wrapped a builder rule's one op as the primitive's one result; an MLIR
lowering rule returns the list of results, so ``return xc`` becomes ``return [xc]``."""
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import mlir

tile_put_sharded_p = Primitive("tile_put_sharded")


def tile_put_sharded(x, tiles):
    return tile_put_sharded_p.bind(x, tiles=tuple(tiles))


def tile_put_sharded_impl(x, tiles):
    assert x.shape[0] == len(tiles)
    return x


def tile_put_sharded_abstract_eval(xs, tiles):
    assert xs.shape[0] == len(tiles)
    return xs


def tile_put_sharded_translation_default(ctx, xc, tiles):
    """`tile_put_sharded_p` on CPU/GPU backends: no-op."""
    return [xc]


tile_put_sharded_p.def_impl(tile_put_sharded_impl)
tile_put_sharded_p.def_abstract_eval(tile_put_sharded_abstract_eval)
mlir.register_lowering(tile_put_sharded_p, tile_put_sharded_translation_default, platform="cpu")
mlir.register_lowering(tile_put_sharded_p, tile_put_sharded_translation_default, platform="gpu")


def compat_entry():
    return (lambda x: tile_put_sharded(x, range(4))), [np.arange(12, dtype=np.float32).reshape(4, 3)]
