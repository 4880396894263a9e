"""A rebound *args list changed through another name or by a helper: the constant it gains
is an operand beyond the primitive's inputs, counted from the explicit layouts."""
import numpy as np
from jax.interpreters import mlir
from jax.interpreters.mlir import custom_call


def _add_constant(ins, n):
    ins.append(mlir.ir_constant(np.int32(n)))


def _cpu_rule_alias(c, *ins, n):
    ins = list(ins)
    extra = ins
    extra.append(mlir.ir_constant(np.int32(n)))
    return custom_call(call_target_name="appended_cpu", operands=ins,
                       operand_layouts=[(0,), ()], result_layouts=[(0,)], result_types=[ins[0].type]).results


def _cpu_rule_helper(c, *ins, n):
    ins = list(ins)
    _add_constant(ins, n)
    return custom_call(call_target_name="appended_cpu", operands=ins,
                       operand_layouts=[(0,), ()], result_layouts=[(0,)], result_types=[ins[0].type]).results
