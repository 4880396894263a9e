# ccmigrate-args: --annotate
"""The helper is also handed on as a value (to partial): whoever calls it that way passes
no context, so it stays manual, saying why."""
import functools

from jaxlib.hlo_helpers import custom_call


def _scale_hlo(name, x):
    return custom_call(name, result_types=[x.type], operands=[x]).results


def _scale_lowering(ctx, x):
    return _scale_hlo("cpu_scale", x)


_scale_f32 = functools.partial(_scale_hlo, "cpu_scale_f32")
