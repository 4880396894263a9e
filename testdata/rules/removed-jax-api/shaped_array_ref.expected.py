"""A Triton bridge of early 2023 (jax 0.4.1 to 0.4.4): kernel arguments typed by their
avals, refs included, as the aval of a Ref was named before jax 0.4.6."""
import jax
import jax.numpy as jnp
from jax._src import state

TYPE_MAP = {jnp.dtype("float32"): "fp32", jnp.dtype("int32"): "i32"}


def get_type_id(obj):
    if isinstance(obj, (jax.core.ShapedArray, state.AbstractRef)):
        return f"*{TYPE_MAP[obj.dtype]}"
    if isinstance(obj, bool):
        return "B"
    raise NotImplementedError(obj)


def ref_dtype(aval: state.AbstractRef):
    return aval.dtype


def scratch_ref(shape, dtype):
    return state.ShapedArrayRef(shape, dtype)
