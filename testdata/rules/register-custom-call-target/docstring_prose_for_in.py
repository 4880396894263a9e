"""A Triton bridge whose docstring reads like a loop over `jax` ("for each of the
`jax.ShapeDtypeStruct`s in"): prose, not a rebinding, so jax.ffi is spelt through the
module's own `import jax`."""
import jax
from jax.lib import xla_client as xc


def triton_call(call_name, capsule):
    """Calls a Triton kernel.

    Args:
      out_shape: the kernel's outputs. Pointers for each of the `jax.ShapeDtypeStruct`s in
        `out_shape` will be passed.
    """
    xc.register_custom_call_target(call_name, capsule, platform="ROCM")
