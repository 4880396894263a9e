"""Norm: a list as backend_config, reached only through its primitive."""
from jax._src.interpreters import mlir
from jax.extend.core import Primitive
from jax.interpreters import mlir as mlir_public

from kernels._common import out_type

norm_p = Primitive("legacy_norm")
norm_p.def_abstract_eval(lambda x: x)


def _norm_lowering(ctx, x):
    return mlir.custom_call("legacy_norm_f32", result_types=[out_type(ctx)], operands=[x],
                            backend_config=[1, 2, 3], api_version=2).results


mlir_public.register_lowering(norm_p, _norm_lowering)
