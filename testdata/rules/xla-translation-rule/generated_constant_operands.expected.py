"""A grid generator whose only operands are its sizes: the builder rule makes one int32
constant per dimension with a generator, ``tuple(ConstantLiteral(c, ...) for v in ...)``,
and passes that tuple whole as the operands (no array operand follows)."""
from functools import partial

import numpy as np
from jax import core
from jax.interpreters import mlir
import jax

grid_p = core.Primitive("grid")


def _grid_abstract(*, shape):
    return core.ShapedArray(shape, np.float32)


def _grid_translation(ctx, *, shape):
    dims = dict(zip(("rows", "cols"), shape))
    return jax.ffi.ffi_lowering(
        "fill_grid",
        api_version=1,
        operand_layouts=tuple(() for _ in dims),
        result_layouts=[tuple(range(len(shape) - 1, -1, -1))],
    )(ctx.replace(avals_in=[*[core.ShapedArray(np.shape(np.int32(v)), np.asarray(np.int32(v)).dtype) for v in dims.values()]]), *tuple(mlir.ir_constant(np.asarray(np.int32(v))) for v in dims.values()))


grid_p.def_abstract_eval(_grid_abstract)
mlir.register_lowering(grid_p, _grid_translation, platform="cpu")


def compat_entry():
    return partial(grid_p.bind, shape=(4, 3)), ()
