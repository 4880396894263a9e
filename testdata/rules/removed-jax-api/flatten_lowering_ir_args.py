"""Lowering rules that flatten their operands with mlir.flatten_lowering_ir_args, the
public alias jax kept from 0.4.31 to 0.6.2 (removed in 0.7.0)."""
import jax
from jax.extend.core import Primitive
from jax.extend.mlir.dialects import stablehlo as hlo
from jax.interpreters import mlir

barrier_p = Primitive("ccm_barrier")
barrier_p.multiple_results = True
barrier_p.def_abstract_eval(lambda *xs: xs)


def _barrier_lowering(ctx, *args):
    barrier = hlo.OptimizationBarrierOp(mlir.flatten_lowering_ir_args(args))
    return barrier.results


mlir.register_lowering(barrier_p, _barrier_lowering)


def doubled(values):
    return mlir.flatten_lowering_ir_args((v, v) for v in values)


def barrier(*xs):
    return barrier_p.bind(*xs)
