import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax

prod_p = Primitive("prod")


def _prod_translation(ctx, x):
    return jax.ffi.ffi_lowering(
        "cpu_prod",
        api_version=1,
        operand_layouts=((0,),),
        result_layouts=[(0,)],
    )(ctx, x)


mlir.register_lowering(prod_p, _prod_translation, platform="cpu")


def compat_entry():
    prod_p.def_abstract_eval(lambda x: x)
    return prod_p.bind, (np.ones(4, np.float32),)
