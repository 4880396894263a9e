"""An environment library's XLA template (envpool style): the rule takes row-major shapes
from a module helper, one result's shape or a tuple of them. Row-major is the layout
ffi_lowering gives by default, so the shapes, the `if` choosing between them and the
helper go, and the lowering passes no layouts."""
from functools import partial

import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client


def _shape_with_layout(specs):
    return tuple(
        xla_client.Shape.array_shape(dtype, shape, tuple(range(len(shape) - 1, -1, -1)))
        if len(shape) > 0 else xla_client.Shape.scalar_shape(dtype)
        for shape, dtype in specs
    )


def make_step(name, handle, in_specs, out_specs):
    def translation(c, *args, platform="cpu"):
        output_shape_with_layout = _shape_with_layout(out_specs)
        if len(out_specs) == 1:
            output_shape = output_shape_with_layout[0]
        else:
            output_shape = xla_client.Shape.tuple_shape(output_shape_with_layout)
        return xla_client.ops.CustomCallWithLayout(
            c,
            f"{name}_{platform}".encode(),
            operands=args,
            operand_shapes_with_layout=_shape_with_layout(in_specs),
            shape_with_layout=output_shape,
            opaque=b"handle",
            has_side_effect=True,
        )

    prim = Primitive(name)
    prim.multiple_results = len(out_specs) > 1
    xla.backend_specific_translations["cpu"][prim] = partial(translation, platform="cpu")
    return prim, translation
