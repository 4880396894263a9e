"""Tagging primitives that mark values for a later analysis and lower to nothing: the
translation rule hands back some of its operands, chosen by plain Python over the
primitive's parameters; it never touches the builder."""
from typing import Any, Sequence, Tuple

import jax
from jax import core


class ValueTag(core.Primitive):
    """Tags the leading ``num_tagged`` operands; the rest ride along."""

    multiple_results = True

    def __init__(self, name: str, num_tagged: int):
        super().__init__(name)
        self.num_tagged = num_tagged
        self.def_impl(self.tagged)
        self.def_abstract_eval(self.tagged)
        jax.interpreters.mlir.register_lowering(self, self._xla_translation)

    def split(self, operands: Sequence[Any]) -> Tuple[tuple, tuple]:
        return tuple(operands[: self.num_tagged]), tuple(operands[self.num_tagged :])

    def tagged(self, *operands, **params):
        return self.split(operands)[0]

    def _xla_translation(
        self,
        xla_context,
        *args,
        **params: Any,
    ):
        """Lowers to nothing: the tagged operands are the results."""
        del xla_context  # unused
        return self.tagged(*args, **params)


def _named(names, values, wanted):
    return [value for name, value in zip(names, values) if name in wanted]


class NamedTag(core.Primitive):
    multiple_results = True

    def __init__(self, name: str, wanted: Sequence[str]):
        super().__init__(name)
        self.wanted = tuple(wanted)
        self.def_abstract_eval(lambda *avals, names: _named(names, avals, self.wanted))
        jax.interpreters.mlir.register_lowering(self, self._xla_translation)

    def _xla_translation(self, ctx, *args, names):
        return _named(names, args, self.wanted)
