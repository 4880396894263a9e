"""A lowering rule that unpacks an image batch's shape before its custom call.

An automatic probe's (8,) array does not unpack into ``N, H, W, C``: the guess had the
wrong rank, which says nothing about the custom call. An entry point giving a batch of
images lowers it.
"""
import struct

import jax
from jax.extend.core import Primitive
from jax.interpreters import mlir

blur_p = Primitive("hostile_image_rank")
blur_p.def_abstract_eval(lambda images: images)


def _blur_lowering(ctx, images):
    n, h, w, c = ctx.avals_in[0].shape
    opaque = struct.pack("iiii", n, h, w, c)
    return jax.ffi.ffi_lowering("image_blur", api_version=2, backend_config=opaque)(ctx, images)


mlir.register_lowering(blur_p, _blur_lowering, platform="cpu")


def blur(images):
    return blur_p.bind(images)
