"""Translation rules that are methods, registered bound to the instance (as
``partial(self._send_translation, platform="cpu")``): the method becomes a lowering rule
that keeps ``self``, and the registration keeps the partial."""
from functools import partial

import numpy as np
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client


class Pool:
    def __init__(self, num_actions):
        self.num_actions = num_actions

    def _send_translation(self, c, handle, *action, platform="cpu"):
        handle_shape = xla_client.Shape.array_shape(np.dtype(np.uint32), (2,), (0,))
        action_shapes = [xla_client.Shape.array_shape(np.dtype(np.float32), (4, 3), (0, 1)) for _ in action]
        return xla_client.ops.CustomCallWithLayout(
            c, f"pool_{platform}_send".encode(), operands=(handle, *action),
            operand_shapes_with_layout=(handle_shape, *action_shapes), shape_with_layout=handle_shape,
            has_side_effect=True)

    def setup(self):
        self.send_p = p = Primitive("pool_send")
        p.def_abstract_eval(lambda handle, *action: core.ShapedArray(handle.shape, handle.dtype))
        xla.backend_specific_translations["cpu"][p] = partial(self._send_translation, platform="cpu")


def compat_entry():
    pool = Pool(2)
    pool.setup()
    return pool.send_p.bind, (np.zeros(2, np.uint32), np.ones((4, 3), np.float32), np.ones((4, 3), np.float32))
