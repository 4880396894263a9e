# ccmigrate-args: --select custom-call-api,aval-to-ir-type,ir-constant
"""Python scalars as extra custom-call operands (the degree and a flag of a spherical-harmonics
kernel); lowers on jax 0.4.28, where ir_constant still took Python scalars (make test-compat)."""
import numpy as np
from jaxlib.hlo_helpers import custom_call

from jax.extend.core import Primitive
from jax.interpreters import mlir

sph_p = Primitive("ccm_sph")
sph_p.def_abstract_eval(lambda xyz, *, l_max, normalized: xyz)


def _sph_lowering(ctx, xyz, *, l_max, normalized):
    out_type = mlir.aval_to_ir_type(ctx.avals_out[0])
    return custom_call(
        "ccm_sph_f32",
        result_types=[out_type],
        operands=[xyz, mlir.ir_constant(l_max), mlir.ir_constant(normalized), mlir.ir_constant(0.5)],
        operand_layouts=[(1, 0), (), (), ()],
        result_layouts=[(1, 0)],
    ).results


mlir.register_lowering(sph_p, _sph_lowering, platform="cpu")


def sph(xyz):
    return sph_p.bind(xyz, l_max=3, normalized=True)


def compat_entry():
    return sph, (np.ones((4, 3), np.float32),)
