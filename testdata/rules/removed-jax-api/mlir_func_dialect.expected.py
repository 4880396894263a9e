"""A lowering rule calling a function merged into the module (the shape of tf2jax's
serialized-module ops, 2023): func ops through mlir.func_dialect, which jax.interpreters.mlir
re-exported until 0.5.3; and the mesh read through jax.pxla."""
from jax.interpreters import pxla, mlir
from jax._src.lib.mlir import ir
from jax.extend.mlir.dialects.func import CallOp


def _call_lowering(ctx, *args, callee_name):
    result_types = [mlir.aval_to_ir_type(ctx.module_context, aval) for aval in ctx.avals_out]
    call = CallOp(result_types, ir.FlatSymbolRefAttr.get(callee_name), args)
    return call.results


def current_mesh():
    return pxla.thread_resources.env.physical_mesh
