"""A signature shim that is also handed out as a value stays, and so do its calls: the
code it is handed to calls it with arguments this module cannot see."""
from jax.interpreters import mlir
from jaxlib.hlo_helpers import custom_call as _hlo_custom_call


def emit(*args, **kwargs):
    try:
        return _hlo_custom_call(*args, **kwargs).results
    except TypeError:
        kwargs["out_types"] = kwargs.pop("result_types")
        return [_hlo_custom_call(*args, **kwargs)]


def _scale_lowering(ctx, x):
    return emit(
        "scale_f32",
        result_types=[mlir.aval_to_ir_type(ctx.avals_out[0])],
        operands=[x],
    )


BUILDERS = {"emit": emit}
