"""Names the installed jax lacks with no exact rewrite: reported manual, file unchanged."""
import jax
import jaxlib
from jax import core
from jax.interpreters import batching
from jax.random import KeyArray

# A module-level annotation is evaluated and kept in __annotations__: reported, not dropped.
DEFAULT_SHAPE: core.Shape = ()


def helpers(x, d, shape, *axes):
    moved = batching.moveaxis(x, *axes)
    move = batching.moveaxis
    weak = core.raise_to_shaped(core.ShapedArray((), x.dtype), weak_type=True)
    return moved, move, weak, jax.dlpack.to_dlpack(x, True), core.ConcreteArray(x.dtype, x)


def is_key(k):
    return isinstance(k, KeyArray)


def is_concrete(z):
    # Through a plain `import jaxlib`: no import of the deleted module to report instead.
    return isinstance(z, jaxlib.xla_extension.ArrayImpl)


def backend():
    from jax._src.lib import xla_bridge
    return xla_bridge.canonicalize_platform("gpu")


from jax import xla_computation  # noqa: E402


def hlo_text(f, *args):
    # Reported at the import and, read through `jax`, here too.
    return jax.xla_computation(f)(*args).as_hlo_text(), xla_computation(f)
