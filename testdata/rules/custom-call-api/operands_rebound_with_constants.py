"""braintaichi's CPU rule: the rule's `*ins` is rebound to descriptor constants from a
comprehension followed by the inputs, and the operand layouts list one per constant and
one per input. The constants cannot be counted, so the context gets one aval per
explicit operand layout; with ctx.avals_in alone the op would get 1 layout for 3 operands."""
from functools import partial

import numpy as np
from jax.interpreters import mlir
from jaxlib.hlo_helpers import custom_call


def _layout(shape):
    return tuple(range(len(shape) - 1, -1, -1))


def _cpu_rule(kernel_id, c, *ins, **kwargs):
    in_out_info = [np.array([kernel_id, 1, 3], np.uint32), np.array([65, 0], np.uint8)]
    ins = [mlir.ir_constant(v) for v in in_out_info] + list(ins)
    input_layouts = [_layout(a.shape) for a in in_out_info] + [_layout(a.shape) for a in c.avals_in]
    output_layouts = tuple([_layout(o.shape) for o in c.avals_out])
    result_types = [mlir.aval_to_ir_type(c.module_context, o) for o in c.avals_out]
    return custom_call(call_target_name="taichi_kernel_aot_call_cpu", operands=ins,
                       operand_layouts=list(input_layouts), result_layouts=list(output_layouts),
                       result_types=list(result_types), has_side_effect=False).results


taichi_cpu_lowering = partial(_cpu_rule, 7)


def _cpu_rule_appended(c, *ins, n):
    # Rebound to a list, then a constant appended in place: one operand beyond the inputs.
    ins = list(ins)
    ins.append(mlir.ir_constant(np.int32(n)))
    input_layouts = [_layout(a.shape) for a in c.avals_in] + [()]
    result_types = [mlir.aval_to_ir_type(c.module_context, o) for o in c.avals_out]
    return custom_call(call_target_name="appended_cpu", operands=ins, operand_layouts=input_layouts,
                       result_layouts=[_layout(o.shape) for o in c.avals_out], result_types=result_types).results
