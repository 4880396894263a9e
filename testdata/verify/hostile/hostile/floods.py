"""Prints 8 MB at import, then works."""
import sys

from jax._src.interpreters import mlir
from jax.extend.core import Primitive
from jax.interpreters import mlir as mlir_public

for _ in range(8 * 1024):
    sys.stdout.write("flood " * 170 + "\n")

flood_p = Primitive("hostile_flood")
flood_p.def_abstract_eval(lambda x: x)


def _lowering(ctx, x):
    out = mlir_public.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return mlir.custom_call("floods_target", result_types=[out], operands=[x], backend_config="", api_version=2).results


mlir_public.register_lowering(flood_p, _lowering)
