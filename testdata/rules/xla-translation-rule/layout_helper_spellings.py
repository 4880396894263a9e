"""The layout helper of layout_helper.py spelt as other bindings wrote the row-major
minor_to_major: ``list(reversed(range(len(dims))))`` in a helper, ``[::-1]`` of a range
in the rule. Both are the row-major default (None)."""
import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client

xops = xla_client.ops

nufft_p = Primitive("nufft")
nufft_p.def_abstract_eval(lambda source, points, *, eps: core.ShapedArray(source.shape, source.dtype))


def layout(s):
    return list(reversed(range(len(s.dimensions()))))


def _nufft_translation(ctx, avals_in, avals_out, source, points, *, eps):
    c = ctx.builder
    source_info = c.get_shape(source)
    points_info = c.get_shape(points)
    return [xops.CustomCallWithLayout(
        c, b"nufft2d1",
        operands=(source, points),
        operand_shapes_with_layout=(
            xla_client.Shape.array_shape(source_info.element_type(), source_info.dimensions(), layout(source_info)),
            xla_client.Shape.array_shape(
                points_info.element_type(), points_info.dimensions(),
                tuple(range(len(points_info.dimensions())))[::-1]),
        ),
        shape_with_layout=xla_client.Shape.array_shape(source_info.element_type(), source_info.dimensions(), layout(source_info)),
        opaque=b"\x01",
    )]


xla.register_translation(nufft_p, _nufft_translation, platform="cpu")


def compat_entry():
    return (lambda s, p: nufft_p.bind(s, p, eps=1e-6)), (np.ones((2, 3), np.complex64), np.ones((2, 5, 4), np.float32))
