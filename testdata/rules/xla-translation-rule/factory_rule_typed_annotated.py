# ccmigrate-args: --annotate --every-rule
"""A rule typed with XlaBuilder/XlaOp, made by a factory (so reported manual) under
--annotate: the kept jaxlib.xla_extension import is annotated without line numbers,
which the annotations above it would shift, so the next run writes the same text.
"""
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


def _make__sample_translation():
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
    return _sample_translation


_sample_translation = _make__sample_translation()


xla.backend_specific_translations["cpu"][sample_p] = _sample_translation


def _make_compat_entry():
    def compat_entry():
        tex = np.ones((2, 4, 4, 3), np.float32)
        uv = np.zeros((2, 5, 2), np.float32)
        return (lambda t, u: sample_p.bind(t, u, mode=1)), (tex, uv)
    return compat_entry


compat_entry = _make_compat_entry()
