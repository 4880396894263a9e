"""Scale: a dict of plain values as backend_config (jax rejects it)."""
from jax._src.interpreters import mlir
from jax.extend.core import Primitive
from jax.interpreters import mlir as mlir_public

from ._common import out_type

scale_p = Primitive("legacy_scale")
scale_p.def_abstract_eval(lambda x: x)


def _scale_lowering(ctx, x):
    return mlir.custom_call(
        "legacy_scale_f32",
        result_types=[out_type(ctx)],
        operands=[x],
        backend_config={"mode": "fast", "alpha": 2.0},
        api_version=3,
    ).results


mlir_public.register_lowering(scale_p, _scale_lowering)


def scale(x):
    return scale_p.bind(x)
