"""Placeholder rules that only raise, registered per platform before the kernels were
written: the MLIR lowering rule raises the same, whatever it is called with."""
from jax._src.lib import xla_client
from jax.extend.core import Primitive
from jax.interpreters import mlir

signature_p = Primitive("signature")


def signature_translation_cpu(ctx, *operands, **params):
    """Not written yet."""
    raise NotImplementedError


def _signature_builder_gpu(ctx, *operands, **params):
    raise NotImplementedError("signature has no GPU kernel")


mlir.register_lowering(signature_p, signature_translation_cpu, platform="cpu")
mlir.register_lowering(signature_p, _signature_builder_gpu, platform="gpu")
