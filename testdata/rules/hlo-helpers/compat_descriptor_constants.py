# ccmigrate-args: --select hlo-helpers,custom-call-api,aval-to-ir-type
"""An FFT binding passing its size and a descriptor as constant operands built with
jaxlib.hlo_helpers; lowers on jax 0.7.2, the last release with that module
(make test-compat)."""
import numpy as np
from jaxlib.hlo_helpers import custom_call, hlo_const, hlo_s32

from jax.extend.core import Primitive
from jax.interpreters import mlir

fft_p = Primitive("ccm_fft")
fft_p.def_abstract_eval(lambda x: x)


def _fft_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.avals_out[0])
    descriptor = hlo_const(np.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8))
    size = hlo_s32(6)
    return custom_call("ccm_fft_f32", result_types=[out_type], operands=[size, descriptor, x],
                       operand_layouts=[(), (0,), (1, 0)], result_layouts=[(1, 0)]).results


mlir.register_lowering(fft_p, _fft_lowering, platform="cpu")


def fft(x):
    return fft_p.bind(x)


def compat_entry():
    return fft, (np.ones((2, 3), np.float32),)
