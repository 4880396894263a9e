"""Static custom-call sites: every call in a file that builds a custom call.

A *site* is a call expression that resolves, through the module's imports (the same
resolver the rules use), to one of jax's custom-call builders:

* ``custom_call`` of ``jax.interpreters.mlir`` (public, removed in 0.8), of the private
  ``jax._src.interpreters.mlir``, of ``jaxlib.hlo_helpers`` / ``jaxlib.mhlo_helpers``;
* ``ffi_lowering`` / ``build_ffi_lowering_function`` / ``ffi_call`` of ``jax.ffi``,
  ``jax.extend.ffi`` or ``jax._src.ffi``;
* ``CustomCallOp`` of an ``hlo`` / ``stablehlo`` / ``mhlo`` dialect module;
* ``xla_client.ops.CustomCall*`` (XlaBuilder translation rules);
* a call of a name bound to ``functools.partial(<one of those>, ...)`` in the same function
  or at module level.

Scanning never imports the file: it is what ``ccmigrate verify --static`` reports, and
what the lowering pass gives a status to, site by site.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import PositionProvider

from codemods import walk
from codemods.context import Options
from codemods.engine import analyse, package_of

CUSTOM_CALL = frozenset(
    {
        "jax.interpreters.mlir.custom_call",
        "jax._src.interpreters.mlir.custom_call",
        "jaxlib.hlo_helpers.custom_call",
        "jaxlib.mhlo_helpers.custom_call",
    }
)
FFI = frozenset(
    f"{module}.{fn}"
    for module in ("jax.ffi", "jax.extend.ffi", "jax._src.ffi")
    for fn in ("ffi_lowering", "build_ffi_lowering_function", "ffi_call")
)
DIALECT_MODULES = frozenset(
    {
        "jax.interpreters.mlir.hlo",
        "jax._src.lib.mlir.dialects.hlo",
        "jax._src.lib.mlir.dialects.mhlo",
        "jax.extend.mlir.dialects.stablehlo",
        "jax.extend.mlir.dialects.mhlo",
        "jaxlib.mlir.dialects.stablehlo",
        "jaxlib.mlir.dialects.mhlo",
        "jaxlib.mlir.dialects.hlo",
        "mlir.dialects.stablehlo",
    }
)

#: Bytes one of which a file must contain to hold a site at all (a superset test).
TRIGGERS = (b"custom_call", b"CustomCall", b"ffi_lowering", b"ffi_call", b"build_ffi_lowering_function")


@dataclasses.dataclass(frozen=True)
class Site:
    """One custom-call site in a source file."""

    path: str
    #: 1-based first and last line of the call expression.
    line: int
    end_line: int
    #: Qualified name of the builder that is called.
    builder: str
    #: The call target's name when it is written as a literal, else ``None``.
    target: Optional[str]
    #: Lines of the innermost function around the site (0, 0 at module level).
    function_start: int = 0
    function_end: int = 0

    def contains(self, line: int) -> bool:
        return self.line <= line <= self.end_line


def kind_of(qualified: Optional[str]) -> Optional[str]:
    """Which builder family a qualified name is, or ``None`` when it builds no custom call."""
    if not qualified:
        return None
    if qualified in CUSTOM_CALL:
        return "custom_call"
    if qualified in FFI:
        return qualified.rsplit(".", 1)[1]
    module, _, attr = qualified.rpartition(".")
    if attr == "CustomCallOp" and module in DIALECT_MODULES:
        return "CustomCallOp"
    parts = qualified.split(".")
    if attr.startswith("CustomCall") and "xla_client" in parts:
        return "xla_client"
    return None


def scan_source(path: str, source: bytes) -> list[Site]:
    """Every site in ``source``; raises what LibCST raises on a file it cannot parse."""
    if not any(t in source for t in TRIGGERS):
        return []
    ctx = analyse(path, source, (), Options(), package_of(path))
    finder = _SiteFinder(ctx)
    walk.read(ctx.module, finder)  # LibCST's own visit rebuilds every node it passes
    if not finder.found:
        return []
    try:
        lines = _call_lines(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # Syntax newer than this interpreter's (``type X = ...`` on 3.11), which LibCST
        # parsed: its own positions give the lines.
        return _scan_with_positions(ctx, finder, path)
    sites = []
    for call, builder, occurrence in finder.found:
        spans = lines.get(get_full_name_for_node(call.func) or "", ())
        if occurrence >= len(spans):
            return _scan_with_positions(ctx, finder, path)
        (start, end), (function_start, function_end) = spans[occurrence]
        sites.append(Site(path, start, end, builder, _target(finder.as_built(call), builder), function_start, function_end))
    return sorted(sites, key=lambda s: (s.line, s.end_line))


def _call_lines(source: bytes) -> dict[str, list[tuple[tuple[int, int], tuple[int, int]]]]:
    """Lines of every call with a dotted callee, by callee text, in source order.

    Python's own parser gives line numbers an order of magnitude cheaper than LibCST's
    position metadata (which regenerates the whole module's code); the k-th call of
    ``mlir.custom_call`` that LibCST visits is the k-th one in source order here.
    """
    found: dict[str, list] = {}

    def walk(node: ast.AST, function: tuple[int, int]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = (node.lineno, node.end_lineno or node.lineno)
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name:
                found.setdefault(name, []).append(
                    ((node.lineno, node.col_offset, -(node.end_lineno or 0), -(node.end_col_offset or 0)),
                     (node.lineno, node.end_lineno or node.lineno), function)
                )
        for child in ast.iter_child_nodes(node):
            walk(child, function)

    walk(ast.parse(source), (0, 0))
    return {name: [(span, function) for _, span, function in sorted(calls, key=lambda c: c[0])] for name, calls in found.items()}


def _dotted(node: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _scan_with_positions(ctx, finder: "_SiteFinder", path: str) -> list[Site]:
    """The exact (slower) way: LibCST's position metadata."""
    positions = ctx.wrapper.resolve(PositionProvider)
    sites = []
    for call, builder, _ in finder.found:
        rng = positions[call]
        function = finder.function_of[call]
        start, end = (positions[function].start.line, positions[function].end.line) if function else (0, 0)
        sites.append(Site(path, rng.start.line, rng.end.line, builder, _target(finder.as_built(call), builder), start, end))
    return sorted(sites, key=lambda s: (s.line, s.end_line))


def scan_file(path: str) -> list[Site]:
    with open(path, "rb") as fh:
        return scan_source(path, fh.read())


class _SiteFinder(cst.CSTVisitor):
    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx
        self.functions: list[cst.FunctionDef] = []
        #: (call, builder, how many calls with the same callee text came before it)
        self.found: list[tuple[cst.Call, str, int]] = []
        self.function_of: dict[cst.Call, Optional[cst.FunctionDef]] = {}
        self._seen: dict[str, int] = {}
        #: For a call made through a partial: the ``functools.partial(...)`` call.
        self.partial_of: dict[cst.Call, cst.Call] = {}

        #: Names bound to ``functools.partial(<builder>, ...)``, by enclosing function
        #: (``None``: the module): each call of such a name builds a custom call.
        self.partials: dict[tuple[Optional[cst.FunctionDef], str], tuple[str, cst.Call]] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        """``call = functools.partial(hlo_helpers.custom_call, name, ...)`` (the extending-jax
        tutorial's lowering rules): the calls of ``call`` are the sites."""
        value = node.value
        if not (len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and isinstance(value, cst.Call)
                and value.args and value.args[0].keyword is None and not value.args[0].star
                and self.ctx.qualified_name(value.func) == "functools.partial"):
            return
        builder = self.ctx.qualified_name(value.args[0].value)
        if kind_of(builder):
            scope = self.functions[-1] if self.functions else None
            self.partials[(scope, node.targets[0].target.value)] = (builder, value)

    def visit_Call(self, node: cst.Call) -> None:
        name = get_full_name_for_node(node.func)
        if not name:
            return
        occurrence = self._seen.get(name, 0)
        self._seen[name] = occurrence + 1
        qualified = self.ctx.qualified_name(node.func)
        partial = self._partial(node.func)
        if partial is not None:
            qualified, bound = partial
            self.partial_of[node] = bound
        if kind_of(qualified):
            self.found.append((node, qualified, occurrence))
            self.function_of[node] = self.functions[-1] if self.functions else None

    def as_built(self, call: cst.Call) -> cst.Call:
        """The builder call ``call`` makes: through a partial, the partial's arguments first."""
        bound = self.partial_of.get(call)
        if bound is None:
            return call
        return cst.Call(func=bound.args[0].value, args=[*bound.args[1:], *call.args])

    def _partial(self, func: cst.BaseExpression) -> Optional[tuple[str, cst.Call]]:
        if not isinstance(func, cst.Name):
            return None
        scope = self.functions[-1] if self.functions else None
        return self.partials.get((scope, func.value)) or self.partials.get((None, func.value))


def _target(call: cst.Call, builder: str) -> Optional[str]:
    kind = kind_of(builder)
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if kind == "xla_client":
        node = keywords.get("call_target_name") or (positional[1] if len(positional) > 1 else None)
    elif kind == "CustomCallOp":
        node = keywords.get("call_target_name") or (positional[2] if len(positional) > 2 else None)
    else:
        node = keywords.get("call_target_name") or keywords.get("target_name") or (positional[0] if positional else None)
    # ``ir.StringAttr.get("name")`` spells a literal too.
    if isinstance(node, cst.Call) and len(node.args) == 1:
        node = node.args[0].value
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            value = ast.literal_eval(cst.Module([]).code_for_node(node))
        except (ValueError, SyntaxError):
            return None
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        return value if isinstance(value, str) else None
    return None
