"""Annotations naming XLA types jax removed, in a rule left for manual migration (femr's
piton/jax.py shape): a parameter's, a return's and a local variable's annotation go; a
field's, a module variable's and a decorated function's stay reported, and one naming
another rule's site stays for that rule."""
import dataclasses
import functools
from typing import Optional, Sequence

import jax
from jax.interpreters import xla
from jax.lib import xla_client


def gather_scatter_add_p_xla_translation(
    ctx: jax.interpreters.xla.TranslationContext,
    avals_in: Sequence[jax.core.ShapedArray],
    avals_out: Sequence[jax.core.ShapedArray],
    a: jax.interpreters.xla.XlaOp,
    indices: xla.XlaOp,
    *,
    output_dim: int,
) -> Sequence[jax.interpreters.xla.XlaOp]:
    computation = jax.xla_computation(lambda x, i: x, static_argnums=())(*avals_in)
    res: xla.XlaOp = xla_client.ops.Call(ctx.builder, computation, [a, indices])
    return [xla_client.ops.GetTupleElement(res, i) for i, _ in enumerate(avals_out)]


def scale(c, x: Optional[xla.XlaOp] = None, factor: float = 2.0):  # the default stays
    return x


@dataclasses.dataclass
class Pending:
    op: xla.XlaOp  # a field: dropping its annotation would drop the field


LAST: xla.XlaOp = None


@functools.singledispatch
def lowered(x):
    return x


@lowered.register
def _(x: xla.XlaOp):  # register reads the annotation: kept, reported
    return x


def builder_of(c: xla_client.XlaBuilder):  # xla-client-import's to report: kept
    return c
