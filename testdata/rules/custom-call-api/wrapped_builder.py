"""A helper wraps the removed builder for several lowering rules (and for other modules,
see wrapped_builder_caller.py): no lowering context reaches the call, so it stays, and
the finding names the rules that hold one."""
from jaxlib.hlo_helpers import custom_call


def call_kernel(name, result_types, operands, layouts, descriptor):
    return custom_call(name, result_types, operands, operand_layouts=layouts,
                       result_layouts=layouts[:1], backend_config=descriptor)


def _norm_lowering(ctx, x):
    return call_kernel("norm_f32", [x.type], [x], [(0,)], b"")


def _norm_grad_lowering(ctx, g, x):
    return call_kernel("norm_grad_f32", [x.type], [g, x], [(0,), (0,)], b"")
