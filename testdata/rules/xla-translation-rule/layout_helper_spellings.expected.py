"""The layout helper of layout_helper.py spelt as other bindings wrote the row-major
minor_to_major: ``list(reversed(range(len(dims))))`` in a helper, ``[::-1]`` of a range
in the rule. Both are the row-major default (None)."""
import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax

nufft_p = Primitive("nufft")
nufft_p.def_abstract_eval(lambda source, points, *, eps: core.ShapedArray(source.shape, source.dtype))


def layout(s):
    return list(reversed(range(len(s.dimensions()))))


def _nufft_translation(ctx, source, points, *, eps):
    source_info = ctx.avals_in[0]
    points_info = ctx.avals_in[1]
    return jax.ffi.ffi_lowering(
        "nufft2d1",
        api_version=1,
        backend_config=b"\x01",
        operand_layouts=(
            None,
            tuple(range(len(points_info.shape)))[::-1],
        ),
        result_layouts=[None],
    )(ctx, source, points)


mlir.register_lowering(nufft_p, _nufft_translation, platform="cpu")


def compat_entry():
    return (lambda s, p: nufft_p.bind(s, p, eps=1e-6)), (np.ones((2, 3), np.complex64), np.ones((2, 5, 4), np.float32))
