"""A texture sampler in the style of small differentiable-rendering bindings: the builder
rule is annotated with the XlaBuilder types and gives every operand its own shape, read
back from the builder, as its layout."""
from typing import Any

import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client
from jaxlib.xla_extension import XlaBuilder, XlaOp

sample_p = Primitive("sample")
sample_p.multiple_results = True
sample_p.def_abstract_eval(lambda tex, uv, *, mode: (core.ShapedArray(uv.shape[:-1] + tex.shape[-1:], tex.dtype),))


def _sample_translation(builder: XlaBuilder, tex: XlaOp, uv: XlaOp, *args: Any, mode: int):
    tex_shape = builder.get_shape(tex)
    dims_uv = builder.get_shape(uv).dimensions()
    out_shape = xla_client.Shape.array_shape(tex_shape.element_type(), dims_uv[:-1] + tex_shape.dimensions()[-1:], (2, 1, 0))
    operands = (tex, uv)
    return xla_client.ops.CustomCallWithLayout(
        builder,
        b"sample_fwd",
        operands=operands,
        operand_shapes_with_layout=tuple([builder.get_shape(x) for x in operands]),
        shape_with_layout=xla_client.Shape.tuple_shape((out_shape,)),
        opaque=np.int32(mode).tobytes(),
    )


xla.backend_specific_translations["cpu"][sample_p] = _sample_translation


def compat_entry():
    tex = np.ones((2, 4, 4, 3), np.float32)
    uv = np.zeros((2, 5, 2), np.float32)
    return (lambda t, u: sample_p.bind(t, u, mode=1)), (tex, uv)
