"""A rule built inside a factory, one primitive per kernel name: the rule reads the name
from the closure and passes its sizes as a constant bound to a local first."""
import numpy as np
from jax.core import ShapedArray
from jax.interpreters import xla
from jax._src.lib import xla_client
from jax.extend.core import Primitive


def make_gather(name):
    def _gather_translation(ctx, avals_in, avals_out, x):
        sizes = xla_client.ops.ConstantLiteral(ctx.builder, np.asarray((3, 5), dtype=np.uint64))
        shape = xla_client.Shape.array_shape(np.dtype(np.float32), (5,), (0,))
        return [xla_client.ops.CustomCallWithLayout(ctx.builder, name.encode(), operands=(
            sizes, x), shape_with_layout=shape, operand_shapes_with_layout=(
            xla_client.Shape.array_shape(np.dtype(np.uint64), (2,), (0,)), shape))]
    prim = Primitive(name)
    prim.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    xla.register_translation(prim, _gather_translation, platform="cpu")
    return prim


def compat_entry():
    prim = make_gather("gather_rows")
    return prim.bind, (np.ones(5, np.float32),)
