"""jax-finufft style: the rule reads the shapes of its `*points` operands with
`list(map(c.get_shape, points))` (or a comprehension), passes them reversed after a
descriptor constant, and builds their layouts in a generator over the reversed list."""
from functools import partial

import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

xops = xla_client.ops

nufft1_p = Primitive("nufft1")
nufft1_p.def_abstract_eval(lambda source, *points, eps: core.ShapedArray(source.shape, source.dtype))
nufft2_p = Primitive("nufft2")
nufft2_p.def_abstract_eval(lambda source, *points, eps: core.ShapedArray(source.shape, source.dtype))


def translation_rule(platform, ctx, avals_in, avals_out, source, *points, eps):
    ndim = len(points)
    c = ctx.builder
    source_shape_info = c.get_shape(source)
    points_shape_info = list(map(c.get_shape, points))
    source_dtype = source_shape_info.element_type()
    assert source_dtype == np.csingle and all(x.element_type() == np.single for x in points_shape_info)
    source_shape = source_shape_info.dimensions()
    points_shape = tuple(x.dimensions() for x in points_shape_info)
    desc = np.array([ndim, source_shape[0], points_shape[0][0]], dtype=np.int64).tobytes()
    operands = (source, *points[::-1])
    operand_shapes_with_layout = (
        xla_client.Shape.array_shape(source_dtype, source_shape, tuple(range(len(source_shape) - 1, -1, -1))),
    ) + tuple(
        xla_client.Shape.array_shape(x.element_type(), x.dimensions(), tuple(range(len(x.dimensions()) - 1, -1, -1)))
        for x in points_shape_info[::-1]
    )
    shape_with_layout = xla_client.Shape.array_shape(source_dtype, source_shape, tuple(range(len(source_shape) - 1, -1, -1)))
    if platform == "cpu":
        return [
            xops.CustomCallWithLayout(
                c,
                b"nufft1f",
                operands=(xops.ConstantLiteral(c, np.frombuffer(desc, dtype=np.uint8)),) + operands,
                operand_shapes_with_layout=(xla_client.Shape.array_shape(np.dtype(np.uint8), (len(desc),), (0,)),)
                + operand_shapes_with_layout,
                shape_with_layout=shape_with_layout,
            )
        ]
    return [
        xops.CustomCallWithLayout(
            c, b"nufft1f", operands=operands, operand_shapes_with_layout=operand_shapes_with_layout,
            shape_with_layout=shape_with_layout, opaque=desc,
        )
    ]


def type2_rule(ctx, avals_in, avals_out, source, *points, eps):
    c = ctx.builder
    points_shape_info = [c.get_shape(p) for p in points]
    return [
        xops.CustomCallWithLayout(
            c, b"nufft2f", operands=(source, *points),
            operand_shapes_with_layout=(c.get_shape(source),) + tuple(
                xla_client.Shape.array_shape(x.element_type(), x.dimensions(), tuple(range(len(x.dimensions()) - 1, -1, -1)))
                for x in points_shape_info),
            shape_with_layout=c.get_shape(source),
        )
    ]


xla.register_translation(nufft1_p, partial(translation_rule, "cpu"), platform="cpu")
xla.register_translation(nufft1_p, partial(translation_rule, "gpu"), platform="gpu")
xla.register_translation(nufft2_p, type2_rule, platform="cpu")


def compat_entry():
    return (lambda s, x, y: nufft1_p.bind(s, x, y, eps=1e-6)), (
        np.ones((2, 3), np.complex64), np.ones((2, 5), np.float32), np.ones((2, 5, 1), np.float32))


def compat_entry_type2():
    return (lambda s, x: nufft2_p.bind(s, x, eps=1e-6)), (np.ones((2, 3), np.complex64), np.ones((4, 5), np.float32))
