import jax
import numpy as np
from jax._src.interpreters import mlir
from jax.extend.core import Primitive
from jax.interpreters import mlir as mlir_public

good_p = Primitive("hostile_good")
good_p.def_abstract_eval(lambda x: x)


def _lowering(ctx, x):
    out = mlir_public.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return mlir.custom_call("good_target", result_types=[out], operands=[x], backend_config=b"\x00\xff", api_version=2).results


mlir_public.register_lowering(good_p, _lowering)


def good(x):
    return good_p.bind(x)


@jax.jit
def ffi_scale(x):
    return jax.ffi.ffi_call("good_ffi_target", jax.ShapeDtypeStruct(x.shape, x.dtype))(x, alpha=np.float32(2.0))


def ffi_inline(x):
    # The pre-0.6 inline form: jax 0.10 rejects it when the function is traced.
    return jax.ffi.ffi_call("inline_target", jax.ShapeDtypeStruct(x.shape, x.dtype), x, alpha=np.float32(2.0))
