"""Custom calls built directly with the StableHLO dialect's CustomCallOp."""
from jax.extend.core import Primitive
from jax.extend.mlir import ir
from jax.extend.mlir.dialects import stablehlo as hlo
from jax.interpreters import mlir

typed_p = Primitive("hostile_direct_typed")
typed_p.def_abstract_eval(lambda x: x)
str_p = Primitive("hostile_direct_str")
str_p.def_abstract_eval(lambda x: x)


def _typed(ctx, x):
    out = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    op = hlo.CustomCallOp([out], [x], call_target_name="direct_typed",
                          backend_config=ir.StringAttr.get('{"k":1}'), api_version=mlir.i32_attr(2))
    return op.results


def _python_str(ctx, x):
    out = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    op = hlo.CustomCallOp([out], [x], call_target_name="direct_str", backend_config='{"k":1}')
    return op.results


mlir.register_lowering(typed_p, _typed)
mlir.register_lowering(str_p, _python_str)
