"""Two alternative registration helpers, each registering its own parameter `primitive`
(the caller picks one by jax version): the MLIR registration in one does not supersede
the translation rule registered by the other, which is converted, not dropped."""
from functools import partial

import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import mlir, xla
from jax.lib import xla_client


def _xla_rule(kernel_name, c, *ins):
    return xla_client.ops.CustomCallWithLayout(
        c, kernel_name, operands=ins,
        operand_shapes_with_layout=tuple(c.get_shape(v) for v in ins),
        shape_with_layout=xla_client.Shape.array_shape(np.dtype(np.float32), (2, 3), (1, 0)),
        opaque=b"cfg",
    )


def register_xla_cpu(primitive, kernel_name):
    xla.backend_specific_translations["cpu"][primitive] = partial(_xla_rule, kernel_name)


def _mlir_rule(kernel_name, ctx, *ins):
    return mlir.lower_fun(lambda *xs: xs[0], multiple_results=False)(ctx, *ins)


def register_mlir_cpu(primitive, kernel_name):
    mlir.register_lowering(primitive, partial(_mlir_rule, kernel_name), platform="cpu")


scale_p = Primitive("scale")
scale_p.def_abstract_eval(lambda x, y: core.ShapedArray(x.shape, x.dtype))
register_xla_cpu(scale_p, b"scale_f32")


def compat_entry():
    return scale_p.bind, (np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
