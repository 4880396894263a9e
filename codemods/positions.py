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

import ast
import codecs
import difflib
import re
from typing import Callable, Iterable, Optional, Sequence

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

    # Only positions are wanted, not the text: a token moves the position, and most
    # tokens hold no newline (LibCST splits every token with a regular expression).
    def add_token(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            self._update_position(value)
        else:
            self.column += len(value)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

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


# -- the original text of unchanged statements ----------------------------------------
#
# Each top-level statement's code is generated without context (at column 0, with the
# module's indent and newline), so the module's text is the header's, then each
# statement's, then the footer's. Where each statement starts in the source is read
# from Python's own parser (far cheaper than generating the code) and checked against
# the tree; a rewritten module's text is then the original bytes of the statements it
# kept and generated code for the others only, and a finding's position is generated
# for the statement that holds it only.

#: Encodings in which the bytes of a text are the bytes of its pieces, concatenated.
_CONCATENATING = re.compile(r"(utf-8|ascii|latin-1|iso8859-\d+|cp\d+)")


def _newlines(text) -> int:
    """Lines ended in ``text`` (``\\r\\n``, ``\\r`` and ``\\n`` each end one), as LibCST counts them."""
    if isinstance(text, bytes):
        return text.count(b"\n") + text.count(b"\r") - text.count(b"\r\n")
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def lines_code(module: cst.Module, lines: Sequence[cst.EmptyLine]) -> str:
    state = _PlainState(default_indent=module.default_indent, default_newline=module.default_newline)
    for line in lines:
        line._codegen(state)
    return "".join(state.tokens)


class StatementIndex:
    """Where each top-level statement of ``module`` starts in its text.

    ``starts[k]`` is the 0-based line where the code of ``module.body[k]`` begins (its
    leading blank lines and comments included); ``starts[len(body)]`` is where the
    footer begins. ``lines`` is the text split after each newline, when known.
    """

    __slots__ = ("module", "starts", "lines", "_position")

    def __init__(self, module: cst.Module, starts: list[int], lines: Optional[list[bytes]] = None) -> None:
        self.module = module
        self.starts = starts
        self.lines = lines
        self._position = {id(stmt): k for k, stmt in enumerate(module.body)}

    def position(self, stmt: cst.CSTNode) -> Optional[int]:
        """Index of ``stmt`` in the module's body (the very node), or ``None``."""
        k = self._position.get(id(stmt))
        return k if k is not None and self.module.body[k] is stmt else None

    def text_of(self, k: int) -> bytes:
        assert self.lines is not None
        return b"".join(self.lines[self.starts[k] : self.starts[k + 1]])


class NestingTooDeep(Exception):
    """The source nests deeper than Python's own parser accepts."""


def python_tree(source: bytes) -> Optional[ast.Module]:
    """Python's tree of ``source``, read before LibCST's native parser sees the text.

    That parser does not fail on nesting Python's parser refuses: it overflows its stack
    and the process dies (a segfault, no exception: the whole run with it, or a worker
    of it), or it takes minutes (libcst 1.9: ``1 + 1 + ...`` 10,000 terms long, 3,000
    nested brackets, 12,000 unary minuses, ``a[0][0]...`` 6,000 deep). Python refuses
    each of those, sooner (``RecursionError``, ``MemoryError`` or "too many nested
    parentheses"), and such a file cannot be imported anyway: :class:`NestingTooDeep`.
    None when Python rejects the text for another reason (syntax older or newer than
    this interpreter's: LibCST's verdict stands)."""
    try:
        return ast.parse(source)
    except (RecursionError, MemoryError):
        raise NestingTooDeep() from None
    except SyntaxError as exc:
        if "too many nested parentheses" in str(exc.msg):
            raise NestingTooDeep() from None
        return None
    except (ValueError, OverflowError):
        return None


def statement_index(module: cst.Module, source: bytes, tree: Optional[ast.Module] = None) -> Optional[StatementIndex]:
    """The :class:`StatementIndex` of ``module``, parsed from ``source`` (whose tree
    Python's parser gave as ``tree``, when known); ``None`` when anything makes it
    doubtful (then code generation answers instead)."""
    body = module.body
    if not body or not module.has_trailing_newline or source.startswith(codecs.BOM_UTF8):
        return None
    if not _CONCATENATING.fullmatch(codecs.lookup(module.encoding).name):
        return None
    if b"\r" in source and source.count(b"\r") != source.count(b"\r\n"):
        return None  # a lone carriage return: Python and LibCST may count lines apart
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return None
    lines = source.splitlines(keepends=True)
    encoding = module.encoding
    header = lines_code(module, module.header).encode(encoding)
    starts: list[int] = []
    previous = _newlines(header)
    if b"".join(lines[:previous]) != header:
        return None
    parsed = tree.body
    j = 0
    for stmt in body:
        if j >= len(parsed):
            return None
        node = parsed[j]
        own = stmt.leading_lines
        if isinstance(stmt, cst.SimpleStatementLine):
            j += len(stmt.body)  # ``a; b``: one line of LibCST's, two statements of Python's
            first = node.lineno - 1
        else:
            j += 1
            decorators = getattr(stmt, "decorators", ())
            if decorators:
                found = getattr(node, "decorator_list", None)
                if not found or len(found) != len(decorators):
                    return None
                first = found[0].lineno - 1
                if first >= len(lines) or not lines[first].startswith(b"@"):
                    return None
                own = (*own, *decorators[0].leading_lines)
            else:
                first = node.lineno - 1
                if node.col_offset != 0:
                    return None
        start = first - len(own)
        if start < previous or first >= len(lines) or lines[first][:1] in (b" ", b"\t", b"\x0c", b"#", b"\r", b"\n"):
            return None
        if own and b"".join(lines[start:first]) != lines_code(module, own).encode(encoding):
            return None
        if starts and start == starts[-1]:
            return None
        starts.append(start)
        previous = first + 1
    if j != len(parsed):
        return None
    footer = lines_code(module, module.footer).encode(encoding)
    end = len(lines) - _newlines(footer)
    if end < previous or b"".join(lines[end:]) != footer:
        return None
    starts.append(end)
    return StatementIndex(module, starts, lines)


class Spliced:
    """A rewritten module's bytes, the index of its statements, and the code generated
    for the statements that changed (``id(statement) -> code``)."""

    __slots__ = ("data", "starts", "generated")

    def __init__(self, data: bytes, starts: list[int], generated: dict[int, str]) -> None:
        self.data = data
        self.starts = starts
        self.generated = generated


def splice(index: StatementIndex, new: cst.Module) -> Optional[Spliced]:
    """``module_bytes(new)``, for a module made from ``index.module``: the statements it
    kept (the very nodes) are copied from the original text, the others generated."""
    original = index.module
    if index.lines is None or not new.has_trailing_newline or (new.encoding, new.default_indent, new.default_newline) != (
        original.encoding, original.default_indent, original.default_newline
    ):
        return None
    encoding = new.encoding
    head = lines_code(new, new.header).encode(encoding)
    pieces = [head]
    line = _newlines(head)
    starts: list[int] = []
    generated: dict[int, str] = {}
    for stmt in new.body:
        k = index.position(stmt)
        if k is not None:
            piece = index.text_of(k)
        else:
            code = code_for_node(new, stmt)
            generated[id(stmt)] = code
            piece = code.encode(encoding)
        starts.append(line)
        line += _newlines(piece)
        pieces.append(piece)
    starts.append(line)
    pieces.append(lines_code(new, new.footer).encode(encoding))
    data = b"".join(pieces)
    if not data:
        return None  # an empty module's text is one newline
    return Spliced(data, starts, generated)


def locate_in(
    index: StatementIndex,
    nodes: Iterable[cst.CSTNode],
    top_of: Callable[[cst.CSTNode], Optional[cst.CSTNode]],
) -> Optional[tuple[dict, dict]]:
    """:func:`locate`, generating code only for the top-level statements that hold the
    nodes (``top_of`` names that statement); ``None`` when a node is outside them."""
    module = index.module
    groups: dict[int, set] = {}
    for node in nodes:
        stmt = top_of(node)
        k = index.position(stmt) if stmt is not None else None
        if k is None:
            return None
        groups.setdefault(k, set()).add(node)
    ranges: dict = {}
    ancestors: dict = {}
    for k in sorted(groups):
        wanted = groups[k]
        state = _LocatingState(module, wanted)
        state.line = index.starts[k] + 1
        state.chain.append(module)
        try:
            module.body[k]._codegen(state)
        except _Done:
            pass
        computed = state.provider._computed
        ranges.update((node, computed[node]) for node in wanted if node in computed)
        ancestors.update(state.ancestors)
    return ranges, ancestors


def line_map(new: bytes, old: bytes) -> Callable[[int], int]:
    """Line numbers of ``new`` (a rewrite of ``old``) to those of ``old``: a line kept from
    ``old`` maps to where it was, a line a rewrite wrote to the first line it replaced."""
    opcodes = difflib.SequenceMatcher(None, new.splitlines(), old.splitlines(), autojunk=False).get_opcodes()

    def line(number: int) -> int:
        if number <= 0:
            return number
        for tag, i1, i2, j1, _ in opcodes:
            if i1 < number <= i2:
                return j1 + (number - i1) if tag == "equal" else j1 + 1
        return number

    return line
