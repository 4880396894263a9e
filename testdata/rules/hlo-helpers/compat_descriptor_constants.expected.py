# ccmigrate-args: --select hlo-helpers,custom-call-api,aval-to-ir-type
"""An FFT binding passing its size and a descriptor as constant operands built with
jaxlib.hlo_helpers; lowers on jax 0.7.2, the last release with that module
(make test-compat)."""
import numpy as np

from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax

fft_p = Primitive("ccm_fft")
fft_p.def_abstract_eval(lambda x: x)


def _fft_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    descriptor = mlir.ir_constant(np.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8))
    size = mlir.ir_constant(np.array(6, dtype=np.int32))
    return jax.ffi.ffi_lowering("ccm_fft_f32", api_version=2, result_types=[out_type],
                       operand_layouts=[(), (0,), (1, 0)], result_layouts=[(1, 0)])(ctx.replace(avals_in=[*ctx.avals_in, None, None]), size, descriptor, x)


mlir.register_lowering(fft_p, _fft_lowering, platform="cpu")


def fft(x):
    return fft_p.bind(x)


def compat_entry():
    return fft, (np.ones((2, 3), np.float32),)
