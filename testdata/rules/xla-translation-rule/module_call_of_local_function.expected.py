"""A module-level call of the module's own two-argument function (``_declare(a, b)``)
next to jax imports: resolving whether it is ``typing.cast`` of a jax module must not
ask for the module's aliases while they are being collected (it recursed without end
and the file was reported as unparsable)."""
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax


def _declare(name, dtype):
    return Primitive(f"{name}_{dtype}")


scale_p = _declare("scale", "f32")


def _scale_translation(ctx, x):
    shape = ctx.avals_in[0]
    return jax.ffi.ffi_lowering(
        "scale_f32",
        api_version=1,
        operand_layouts=(None,),
        result_layouts=[None],
    )(ctx, x)


mlir.register_lowering(scale_p, _scale_translation, platform="cpu")
