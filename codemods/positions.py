"""Line and column of a few nodes, and the chain of nodes above each, in one partial pass;
and code generation without LibCST's per-node context manager.

LibCST's ``PositionProvider`` regenerates the whole module and records a range for every
node; a file with findings needs ranges for a handful of nodes only. This regenerates the
module with a code generation state that records ranges for the wanted nodes (and what
they are built from) and the ancestors of each, and stops as soon as the last wanted node
has been generated. The ranges are the same ``CodeRange`` values ``PositionProvider``
gives (syntactic positions).
"""

from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst._position import CodePosition, CodeRange
from libcst.metadata.position_provider import PositionProvidingCodegenState


class _Done(Exception):
    pass


class _NoPosition:
    """What ``record_syntactic_position`` gives where no position is wanted: a plain
    context manager. LibCST's is a generator-based one, entered for most nodes of a
    module, which costs more than the rest of generating the code."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info) -> bool:
        return False


_NO_POSITION = _NoPosition()


class _PlainState(CodegenState):
    def record_syntactic_position(self, node, *, start_node=None, end_node=None) -> _NoPosition:
        return _NO_POSITION


def code_for_node(module: cst.Module, node: cst.CSTNode) -> str:
    """``module.code_for_node(node)``: the same text, generated faster."""
    state = _PlainState(default_indent=module.default_indent, default_newline=module.default_newline)
    node._codegen(state)
    return "".join(state.tokens)


def module_bytes(module: cst.Module) -> bytes:
    """``module.bytes``: the same bytes, generated faster."""
    return code_for_node(module, module).encode(module.encoding)


class _Ranges:
    """Stands in for the metadata provider whose ``_computed`` the state fills."""

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, CodeRange] = {}


class _LocatingState(PositionProvidingCodegenState):
    def __init__(self, module: cst.Module, wanted: set[cst.CSTNode]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline, provider=_Ranges())
        self.wanted = wanted
        self.remaining = len(wanted)
        self.inside = 0  # depth inside wanted nodes: their parts are recorded too
        self.chain: list[cst.CSTNode] = []
        self.starts: list[CodePosition] = []
        self.ancestors: dict[cst.CSTNode, tuple[cst.CSTNode, ...]] = {}

    def before_codegen(self, node: cst.CSTNode) -> None:
        if node in self.wanted:
            self.ancestors[node] = tuple(self.chain)
            self.inside += 1
        if self.inside:
            # Every part of a wanted node gets a range: syntactic positions of the
            # node are read from its parts (an import's closing parenthesis, say).
            self.starts.append(CodePosition(self.line, self.column))
        self.chain.append(node)

    def after_codegen(self, node: cst.CSTNode) -> None:
        self.chain.pop()
        if self.inside:
            start = self.starts.pop()
            self.provider._computed.setdefault(node, CodeRange(start, CodePosition(self.line, self.column)))
        if node in self.wanted:
            self.inside -= 1
            self.remaining -= 1
            if self.remaining == 0:
                raise _Done

    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: Optional[cst.CSTNode] = None,
        end_node: Optional[cst.CSTNode] = None,
    ):
        if not self.inside:
            return _NO_POSITION
        return super().record_syntactic_position(node, start_node=start_node, end_node=end_node)


def locate(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> tuple[dict, dict]:
    """``(ranges, ancestors)`` of ``nodes``: ``CodeRange`` and outermost-first parents."""
    wanted = set(nodes)
    if not wanted:
        return {}, {}
    state = _LocatingState(module, wanted)
    try:
        module._codegen(state)
    except _Done:
        pass
    ranges = {node: state.provider._computed[node] for node in wanted if node in state.provider._computed}
    return ranges, state.ancestors
