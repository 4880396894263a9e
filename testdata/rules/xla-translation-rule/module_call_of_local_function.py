"""A module-level call of the module's own two-argument function (``_declare(a, b)``)
next to jax imports: resolving whether it is ``typing.cast`` of a jax module must not
ask for the module's aliases while they are being collected (it recursed without end
and the file was reported as unparsable)."""
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client


def _declare(name, dtype):
    return Primitive(f"{name}_{dtype}")


scale_p = _declare("scale", "f32")


def _scale_translation(c, x):
    shape = c.get_shape(x)
    return xla_client.ops.CustomCallWithLayout(
        c,
        b"scale_f32",
        operands=(x,),
        shape_with_layout=shape,
        operand_shapes_with_layout=(shape,),
    )


xla.backend_specific_translations["cpu"][scale_p] = _scale_translation
