"""A simulator mixin (envpool's lax.py style): the rules are methods registered per
instance through ``partial(self._rule, platform=...)``, and they take row-major shapes
from a ``@staticmethod`` of the class, called on ``self``: directly in the layout
keywords, indexed (``[0]``), bound to a name, or wrapped in ``Shape.tuple_shape``. The
shapes and the method go (ffi_lowering's default layouts), and ``name.encode()`` gives
the target name back as the str it was made from."""
from functools import partial

import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import mlir
import jax
from jax.extend.mlir.dialects import stablehlo as hlo
from jax.extend.mlir import ir


def _ccmigrate_tuple_lowering(call_target_name, **kwargs):
    """jax.ffi.ffi_lowering for a custom call XlaBuilder made with a tuple shape (added by ccmigrate): a tuple
    of one result stays a tuple, its element taken out for the rule, since on CPU a legacy kernel reaches its
    outputs through the tuple's table of pointers; several results are that tuple in XLA already."""

    def lowering(ctx, *operands):
        if len(ctx.avals_out) != 1:
            return jax.ffi.ffi_lowering(call_target_name, **kwargs)(ctx, *operands)
        (aval,) = ctx.avals_out
        result_types = [ir.TupleType.get_tuple([mlir.aval_to_ir_type(ctx.module_context, aval)])]
        (result,) = jax.ffi.ffi_lowering(call_target_name, result_types=result_types, **kwargs)(ctx, *operands)
        return [hlo.get_tuple_element(result, 0)]

    return lowering


class SimMixin:
    def _handle_spec(self):
        return [4], np.dtype("uint8")

    def _obs_specs(self):
        return [(list(self.obs_shape), np.dtype("float32"))]

    def _push_lowering(self, ctx, handle, *actions, platform="cpu"):
        specs = [self._handle_spec(), *self._obs_specs()]
        return jax.ffi.ffi_lowering(
            f"sim_{self.tag}_{platform}_push",
            api_version=1,
            # the call writes into the simulator: never merged or dropped
            has_side_effect=True,
        )(ctx, handle, *actions)

    def _pull_lowering(self, ctx, handle, *, platform="cpu"):
        return _ccmigrate_tuple_lowering(
            f"sim_{self.tag}_{platform}_pull",
            api_version=1,
            has_side_effect=True,
        )(ctx, handle)

    def _setup(self):
        self._push_p = push_p = Primitive(f"sim_{self.tag}_push")
        self._pull_p = pull_p = Primitive(f"sim_{self.tag}_pull")
        pull_p.multiple_results = True
        mlir.register_lowering(push_p, partial(self._push_lowering, platform="cpu"), platform="cpu")
        mlir.register_lowering(pull_p, partial(self._pull_lowering, platform="cpu"), platform="cpu")


class Sim(SimMixin):
    def __init__(self, tag, obs_shape):
        self.tag = tag
        self.obs_shape = obs_shape
        self._setup()
