"""Helpers imported together behind an optional-import guard whose except clause sets them
all to None: neither the comma list of the import nor the None fallback is another
meaning of the names, so every helper is rewritten in one run."""
import numpy as np

try:
    from jax.interpreters import mlir
except ImportError:
    hlo_const = hlo_s32 = hlo_u8 = None


def _descriptor_operands(n, descriptor):
    return [mlir.ir_constant(np.array(n, dtype=np.int32)), mlir.ir_constant(np.frombuffer(descriptor, dtype=np.uint8)), mlir.ir_constant(np.array(1, dtype=np.uint8))]
