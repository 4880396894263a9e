"""Placeholder rules that only raise, registered per platform before the kernels were
written: the MLIR lowering rule raises the same, whatever it is called with."""
from jax._src.lib import xla_client
from jax.extend.core import Primitive
from jax.interpreters import xla

signature_p = Primitive("signature")


def signature_translation_cpu(
    ctx,
    avals_in,
    avals_out,
    paths,
    depth,
):
    """Not written yet."""
    raise NotImplementedError


def _signature_builder_gpu(c, paths, *, depth):
    raise NotImplementedError("signature has no GPU kernel")


xla.backend_specific_translations["cpu"][signature_p] = signature_translation_cpu
xla.backend_specific_translations["gpu"][signature_p] = _signature_builder_gpu
