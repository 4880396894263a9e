"""A simulator mixin (envpool's lax.py style): the rules are methods registered per
instance through ``partial(self._rule, platform=...)``, and they take row-major shapes
from a ``@staticmethod`` of the class, called on ``self``: directly in the layout
keywords, indexed (``[0]``), bound to a name, or wrapped in ``Shape.tuple_shape``. The
shapes and the method go (ffi_lowering's default layouts), and ``name.encode()`` gives
the target name back as the str it was made from."""
from functools import partial

import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client


class SimMixin:
    def _handle_spec(self):
        return [4], np.dtype("uint8")

    def _obs_specs(self):
        return [(list(self.obs_shape), np.dtype("float32"))]

    @staticmethod
    def _row_major(specs):
        return tuple(
            xla_client.Shape.array_shape(dtype, shape, tuple(range(len(shape) - 1, -1, -1)))
            for shape, dtype in specs
        )

    def _push_lowering(self, c, handle, *actions, platform="cpu"):
        specs = [self._handle_spec(), *self._obs_specs()]
        return xla_client.ops.CustomCallWithLayout(
            c,
            f"sim_{self.tag}_{platform}_push".encode(),
            operands=(handle, *actions),
            operand_shapes_with_layout=(self._row_major(specs)),
            shape_with_layout=self._row_major([self._handle_spec()])[0],
            # the call writes into the simulator: never merged or dropped
            has_side_effect=True,
        )

    def _pull_lowering(self, c, handle, *, platform="cpu"):
        operand_shapes = self._row_major([self._handle_spec()])
        result_shape = xla_client.Shape.tuple_shape(
            self._row_major([self._handle_spec(), *self._obs_specs()])
        )
        return xla_client.ops.CustomCallWithLayout(
            c,
            f"sim_{self.tag}_{platform}_pull".encode("utf-8"),
            operands=(handle,),
            operand_shapes_with_layout=operand_shapes,
            shape_with_layout=result_shape,
            has_side_effect=True,
        )

    def _setup(self):
        self._push_p = push_p = Primitive(f"sim_{self.tag}_push")
        self._pull_p = pull_p = Primitive(f"sim_{self.tag}_pull")
        pull_p.multiple_results = True
        xla.backend_specific_translations["cpu"][push_p] = partial(self._push_lowering, platform="cpu")
        xla.backend_specific_translations["cpu"][pull_p] = partial(self._pull_lowering, platform="cpu")


class Sim(SimMixin):
    def __init__(self, tag, obs_shape):
        self.tag = tag
        self.obs_shape = obs_shape
        self._setup()
