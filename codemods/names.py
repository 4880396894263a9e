"""Resolve names in a module to the fully qualified names of what they import.

Rules ask "is this call ``jax.interpreters.mlir.custom_call``?" whatever the module
spelt (``mlir.custom_call`` after ``from jax.interpreters import mlir``, ``M.custom_call``
after ``import jax._src.interpreters.mlir as M``, ``cc`` after ``from jaxlib.hlo_helpers
import custom_call as cc``...).

LibCST's ``QualifiedNameProvider`` answers that exactly, but it needs scope analysis of
the whole module, which costs several times a parse. So resolution has two tiers:

1. A table of the module's import statements, gathered by walking statements only
   (never expressions), answers when the head name of the expression is bound by
   exactly one import at module level and nothing else in the file could rebind it.
2. Otherwise (the name is imported in several places, imported inside a function, or
   appears in a position that could bind it: ``def``, ``class``, assignment, parameter,
   ``for``, ``as``...) the answer comes from ``QualifiedNameProvider``, computed once
   per file and only for files that need it. A local function that merely shares a
   name with an import is therefore never mistaken for it.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from typing import Iterator, Optional, Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, QualifiedNameProvider, QualifiedNameSource


@dataclasses.dataclass(frozen=True)
class ImportBinding:
    """``local`` names ``qualified`` (a module, or an object inside one)."""

    local: str
    qualified: str
    top_level: bool
    #: The statement that made the binding.
    statement: cst.CSTNode = dataclasses.field(compare=False, hash=False)
    #: For ``from m import x``: the module part, else ``None``.
    from_module: Optional[str] = None


def _dotted(node: Optional[cst.BaseExpression]) -> str:
    return get_full_name_for_node(node) or "" if node is not None else ""


def public_spelling(qualified: str) -> str:
    """``jax._src.interpreters.mlir.x`` -> ``jax.interpreters.mlir.x``: the name a private
    jax module's public twin gives it (anything else unchanged)."""
    return qualified.replace("._src.", ".", 1)


def resolve_relative(package: Optional[str], dots: int, module: str) -> str:
    """``from ..a import b`` in package ``p.q.r`` -> ``p.q.a``; unknown package keeps dots."""
    if not dots:
        return module
    if package is None:
        return "." * dots + module
    parts = package.split(".") if package else []
    base = parts[: len(parts) - (dots - 1)] if dots - 1 <= len(parts) else []
    return ".".join([*base, module] if module else base)


def iter_statements(body: Sequence[cst.CSTNode], top: bool) -> Iterator[tuple[cst.CSTNode, bool]]:
    """Every simple statement and its top-levelness; descends compound statements only."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                yield small, top
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            yield from iter_statements(_block(stmt.body), False)
        elif isinstance(stmt, cst.BaseCompoundStatement):
            # if/try/with/for/while at module level still bind module-level names, but for
            # the script block, which runs only when the file is run, not imported.
            script = top and is_main_guard(stmt)
            for k, block in enumerate(blocks_of(stmt)):
                yield from iter_statements(block, top and not (script and k == 0))


def is_main_guard(stmt: cst.CSTNode) -> bool:
    """``if __name__ == "__main__":`` (either operand order)."""
    if not isinstance(stmt, cst.If) or not isinstance(stmt.test, cst.Comparison) or len(stmt.test.comparisons) != 1:
        return False
    target = stmt.test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    sides = (stmt.test.left, target.comparator)
    return any(isinstance(a, cst.Name) and a.value == "__name__" for a in sides) and any(
        isinstance(b, cst.SimpleString) and b.evaluated_value == "__main__" for b in sides)


def _block(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    if isinstance(suite, cst.IndentedBlock):
        return suite.body
    return [cst.SimpleStatementLine(body=suite.body)] if isinstance(suite, cst.SimpleStatementSuite) else []


def blocks_of(stmt: cst.BaseCompoundStatement) -> Iterator[Sequence[cst.CSTNode]]:
    """The statement lists of a compound statement: its body, elif/else chain, ``finally``,
    handlers, or match cases."""
    if isinstance(stmt, cst.Match):  # the only compound statement without a body of its own
        for case in stmt.cases:
            yield _block(case.body)
        return
    yield _block(stmt.body)
    for attr in ("orelse", "finalbody"):
        extra = getattr(stmt, attr, None)
        while extra is not None:
            if isinstance(extra, cst.If):  # elif chain
                yield _block(extra.body)
                extra = extra.orelse
                continue
            yield _block(extra.body)
            break
    for handler in getattr(stmt, "handlers", ()) or ():
        yield _block(handler.body)


def gather_imports(module: cst.Module, package: Optional[str] = None) -> list[ImportBinding]:
    bindings: list[ImportBinding] = []
    for stmt, top in iter_statements(module.body, True):
        if isinstance(stmt, cst.Import):
            for alias in stmt.names:
                full = _dotted(alias.name)
                if alias.asname is not None:
                    local = _dotted(alias.asname.name)
                    bindings.append(ImportBinding(local, full, top, stmt))
                else:
                    head = full.split(".")[0]
                    bindings.append(ImportBinding(head, head, top, stmt))
        elif isinstance(stmt, cst.ImportFrom):
            mod = resolve_relative(package, len(stmt.relative), _dotted(stmt.module))
            if isinstance(stmt.names, cst.ImportStar):
                continue
            for alias in stmt.names:
                name = _dotted(alias.name)
                local = _dotted(alias.asname.name) if alias.asname is not None else name
                qual = f"{mod}.{name}" if mod and not mod.endswith(".") else f"{mod}{name}"
                bindings.append(ImportBinding(local, qual, top, stmt, from_module=mod))
    return bindings


def _imported_names(stmt: cst.Import) -> list[str]:
    return [_dotted(alias.name) for alias in stmt.names]


_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_SPACE = frozenset(b" \t\n\r\f\v")
#: An import line; or one shown in a docstring's doctest (``>>> import numpy as np``), which
#: binds nothing.
_IMPORT_LINE = re.compile(rb"\s*(?:(?:>>>|\.\.\.)[ \t]+)?(from\s+\S+\s+)?import\b")
#: ``name = None`` (or ``a = b = None``) alone on its line ...
_NONE_LINE = re.compile(rb"[ \t]*(?:\w+[ \t]*=[ \t]*)+None[ \t]*(?:#[^\r\n]*)?\r?$")
#: ... right under an ``except ...:`` line: the fallback of an optional import.
_EXCEPT_LINE = re.compile(rb"[ \t]*except\b[^\r\n]*:[ \t]*(?:#[^\r\n]*)?\r?$")


#: An ``except`` line that catches a failed import (bare, ``Exception``, ``ImportError``,
#: ``ModuleNotFoundError``, alone or in a tuple).
_IMPORT_EXCEPT_LINE = re.compile(
    rb"[ \t]*except\b[ \t]*(?:\(?[^\r\n:]*\b(?:ImportError|ModuleNotFoundError|Exception)\b[^\r\n:]*)?:"
    rb"[ \t]*(?:#[^\r\n]*)?\r?$")
#: A branch inside such a handler (``if "BUILDING_DOCS" in os.environ:``, ``else:``).
_BRANCH_LINE = re.compile(rb"(?:if|elif|else)\b")


def _import_fallback(source: bytes, start: int) -> bool:
    """Whether the binding at ``start`` is the fallback of an optional import: ``name =
    None`` as the whole body of an ``except`` clause (``try: from jaxlib import hlo_helpers
    / except ImportError: hlo_helpers = None``), or any assignment of the name inside a
    handler of a failed import (firedrake's ``except ImportError: jax = SimpleNamespace()``,
    a stand-in for building the docs without jax). That code runs only where the import
    failed: every other use of the name means the import."""
    line_start = source.rfind(b"\n", 0, start) + 1
    line_end = source.find(b"\n", start)
    line_end = len(source) if line_end == -1 else line_end
    if not _NONE_LINE.fullmatch(source, line_start, line_end):
        return _in_import_handler(source, line_start, start)
    previous_end = line_start - 1
    while previous_end > 0:
        previous_start = source.rfind(b"\n", 0, previous_end) + 1
        text = source[previous_start:previous_end].strip()
        if text and not text.startswith(b"#"):
            # ``name = None`` after other statements of an import's handler counts too.
            return bool(_EXCEPT_LINE.fullmatch(source, previous_start, previous_end)) or \
                _in_import_handler(source, line_start, start)
        previous_end = previous_start - 1
    return False


def _in_import_handler(source: bytes, line_start: int, start: int) -> bool:
    """Whether the line at ``line_start`` assigns the name at ``start`` and sits in the
    body of an ``except`` clause catching a failed import (the first less indented line
    above it is that ``except``, or an ``if``/``else`` inside it)."""
    indent = len(source[line_start:start]) - len(source[line_start:start].lstrip(b" \t"))
    if source[line_start + indent:start].strip() or not _assigned_after(_name_at(source, start)).match(source, start):
        return False  # not a plain ``name = ...`` statement
    previous_end = line_start - 1
    while previous_end > 0:
        previous_start = source.rfind(b"\n", 0, previous_end) + 1
        line = source[previous_start:previous_end]
        text = line.strip()
        if text and not text.startswith(b"#"):
            outer = len(line) - len(line.lstrip(b" \t"))
            if outer < indent:
                if _IMPORT_EXCEPT_LINE.fullmatch(source, previous_start, previous_end):
                    return True
                if not _BRANCH_LINE.match(text):
                    return False
                indent = outer  # inside an ``if`` of the handler: look further out
        previous_end = previous_start - 1
    return False


def _name_at(source: bytes, start: int) -> bytes:
    end = start
    while end < len(source) and source[end] in _WORD:
        end += 1
    return source[start:end]


def _word_at(source: bytes, index: int) -> bool:
    return 0 <= index < len(source) and source[index] in _WORD


def _boundary(source: bytes, index: int) -> bool:
    return _word_at(source, index - 1) != _word_at(source, index)


def _assigned_after(name: bytes) -> re.Pattern[bytes]:
    n = re.escape(name)
    return re.compile(n + rb"(?:\s*(?::[^=\n]*)?(?:[-+*/%@&|^]|<<|>>|//|\*\*)?=(?!=)|\s*:=)")


def _ends_binding(source: bytes, index: int) -> bool:
    """Whether what follows a name at ``index`` can end ``def``/``class``/``global``/``as
    <name>``: a bracket, colon, comma, semicolon, comment or the line's end. Prose in a
    docstring (``... as jax advised``) goes on with a word."""
    while index < len(source) and source[index] in b" \t":
        index += 1
    return index >= len(source) or source[index] in b"()[]{}:,;#\r\n\\"


def _keyword_in(source: bytes, keyword: bytes, start: int, end: int) -> int:
    """Where ``\\b<keyword>\\b`` first lies wholly inside ``source[start:end]``, or -1."""
    at = source.find(keyword, start, end)
    while at != -1:
        if _boundary(source, at) and _boundary(source, at + len(keyword)):
            return at
        at = source.find(keyword, at + 1, end)
    return -1


def _in_comment(source: bytes, index: int) -> bool:
    """Whether ``index`` follows a ``#`` with no quote before it on its line: a comment
    (or text of a string spanning lines), never code. The TODO lines ``--annotate``
    writes read like code (``for the XlaBuilder (xla_client.ops in 0.6.0``), and must
    not change how the next run resolves names."""
    line_start = source.rfind(b"\n", 0, index) + 1
    hash_at = source.find(b"#", line_start, index)
    if hash_at == -1:
        return False
    return source.find(b"'", line_start, hash_at) == -1 and source.find(b'"', line_start, hash_at) == -1


def _target_list(text: bytes) -> bool:
    """Whether ``text``, between ``for`` and a name, can open a loop's target list
    (``a, (b, `` but not the prose of a docstring: ``each of the `jax``)."""
    stripped = text.strip()
    if stripped and stripped[-1:] not in b"([,*":
        return False  # ``for a x``: the name must follow a delimiter
    for piece in re.split(rb"[(),\[\]*]", text):
        piece = piece.strip()
        if piece and not re.fullmatch(rb"[A-Za-z_][\w.]*", piece):
            return False
    return True


def rebinding_sites(source: bytes, name: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each place where ``name`` may be bound other than by an import.

    Conservative (a hit only sends resolution to the exact tier): ``def``/``class``/
    ``global``/``nonlocal``/``as`` before the name; an assignment, augmented or annotated
    assignment or ``:=`` after it; the name alone between ``(``/``,`` and ``,``/``)``/
    ``:``/``=`` (parameters, unpacking); the name after ``for`` with ``in`` after it, or
    after ``lambda``, on one line with no colon between. Found from the occurrences of the
    name, which every case contains, rather than by a regular expression tried at every
    byte of the file (several times slower: this runs for every imported name of every
    candidate file, twice).
    """
    n = name.encode()
    assigned = None
    size = len(source)
    occ = source.find(n)
    while occ != -1:
        after = occ + len(n)
        before = source[occ - 1] if occ else None
        if _in_comment(source, occ):
            pass
        elif before is None or (before not in _WORD and before != 0x2E):  # not after a word or "."
            # ``name = ...``, ``name += ...``, ``name: T = ...``, ``name := ...``
            if assigned is None:
                assigned = _assigned_after(n)
            match = assigned.match(source, occ)
            if match:
                yield occ, match.end()
            bounded = _boundary(source, after)
            # ``def|class|global|nonlocal|as <space> name``
            j = occ
            while j and source[j - 1] in _SPACE:
                j -= 1
            if j < occ and bounded and _ends_binding(source, after):
                for keyword in (b"def", b"class", b"global", b"nonlocal", b"as"):
                    start = j - len(keyword)
                    if start >= 0 and source[start:j] == keyword and _boundary(source, start):
                        yield start, after
            # ``(name,`` ``, *name)`` ``(**name=`` ...
            k = occ
            while k and source[k - 1] == 0x2A:  # "*"
                k -= 1
            while k and source[k - 1] in _SPACE:
                k -= 1
            if k and source[k - 1] in b"(,":
                m = after
                while m < size and source[m] in _SPACE:
                    m += 1
                if m < size and source[m] in b",):=":
                    yield k - 1, m + 1
            if bounded:
                # ``for ... name ... in`` and ``lambda ... name`` on one line, no colon between
                segment = max(source.rfind(b"\n", 0, occ), source.rfind(b":", 0, occ)) + 1
                ends = [e for e in (source.find(b"\n", after), source.find(b":", after)) if e != -1]
                segment_end = min(ends) if ends else size
                loop = _keyword_in(source, b"for", segment, occ)
                if loop != -1 and _keyword_in(source, b"in", after, segment_end) != -1 and _target_list(source[loop + 3 : occ]):
                    yield loop, segment_end
                function = _keyword_in(source, b"lambda", segment, occ)
                if function != -1:
                    yield function, after
        occ = source.find(n, occ + 1)


class NameResolver:
    """Qualified names of ``Name``/``Attribute`` expressions of one module."""

    def __init__(
        self,
        wrapper: MetadataWrapper,
        source: bytes,
        package: Optional[str] = None,
    ) -> None:
        self.wrapper = wrapper
        self.module = wrapper.module
        self.source = source
        self.package = package
        self.imports = gather_imports(self.module, package)
        self._by_local: dict[str, list[ImportBinding]] = {}
        for binding in self.imports:
            self._by_local.setdefault(binding.local, []).append(binding)
        self._exact: Optional[dict] = None
        self._ambiguous: dict[str, bool] = {}
        self._fallbacks_only: dict[tuple[str, bool], bool] = {}
        self._bodies: Optional[list[tuple[int, int, frozenset[str]]]] = None
        self._classes: list[tuple[int, int]] = []
        self._module_aliases: Optional[dict[str, str]] = None

    # -- queries -------------------------------------------------------------
    def qualified_name(self, node: cst.CSTNode) -> Optional[str]:
        """The import-qualified name of ``node``, or ``None`` if it is not imported."""
        dotted = get_full_name_for_node(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if not dotted:
            return None
        head, _, rest = dotted.partition(".")
        bindings = self._by_local.get(head)
        if not bindings:
            alias = self.module_aliases().get(head)
            if alias is None:
                return None
            return f"{alias}.{rest}" if rest else alias
        # One module-level meaning; imports of the very same module inside functions
        # (``from jax.interpreters import xla`` again in a rule) do not change it.
        if self._same_import(bindings) and not self._maybe_rebound(head):
            qual = bindings[0].qualified
            return f"{qual}.{rest}" if rest else qual
        last = self._public_twin_last(bindings)
        if last is not None and not self._maybe_rebound(head):
            return f"{last}.{rest}" if rest else last
        return self._exact_name(node)

    def module_aliases(self) -> dict[str, str]:
        """Names a module-level statement binds once, and nothing else binds, to an imported
        jax module under another name: ``_xla = xla`` or ``_core = cast(Any, core)`` (a
        typing cast is the value itself at run time). ``xops = xla_client.ops`` and other
        attribute paths are the rules' to follow (``qualified_through_alias``)."""
        if self._module_aliases is None:
            found: dict[str, str] = {}
            # Resolving a value below asks for these aliases again: it sees none yet.
            self._module_aliases = found
            for stmt in self.module.body:
                if not isinstance(stmt, cst.SimpleStatementLine):
                    continue
                for small in stmt.body:
                    if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                            and isinstance(small.targets[0].target, cst.Name)):
                        continue
                    name, value = small.targets[0].target.value, small.value
                    if isinstance(value, cst.Call) and len(value.args) == 2 and not any(a.keyword or a.star for a in value.args) \
                            and self.qualified_name(value.func) == "typing.cast":
                        value = value.args[1].value
                    if not isinstance(value, cst.Name) or name in self._by_local:
                        continue
                    bindings = self._by_local.get(value.value, [])
                    if len(bindings) != 1 or not bindings[0].top_level or sum(1 for _ in rebinding_sites(self.source, name)) != 1:
                        continue
                    qualified = self.qualified_name(value)
                    if qualified is not None and qualified.split(".")[0] in ("jax", "jaxlib"):
                        found[name] = qualified
            self._module_aliases = found
        return self._module_aliases

    def _public_twin_last(self, bindings: list[ImportBinding]) -> Optional[str]:
        """``from jax._src.interpreters import mlir`` then ``from jax.interpreters import
        mlir``, both plain module-level statements: code after them (every function body)
        sees the last, a jax module and its private twin (jaxDecomp imports both)."""
        if len(bindings) != 2 or not all(b.top_level for b in bindings):
            return None
        first, last = bindings
        if public_spelling(first.qualified) != public_spelling(last.qualified):
            return None
        direct = {id(small) for stmt in self.module.body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body}
        if not all(id(b.statement) in direct for b in bindings):
            return None
        return last.qualified

    def qualified_names(self, node: cst.CSTNode) -> frozenset[str]:
        """Every import-qualified name ``node`` may hold: several when a name is imported
        on more than one path (``try: from a import f`` / ``except ImportError: from b
        import f``); empty when anything other than an import may bind it."""
        dotted = get_full_name_for_node(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if not dotted:
            return frozenset()
        head, _, rest = dotted.partition(".")
        bindings = self._by_local.get(head)
        if not bindings:
            alias = self.module_aliases().get(head)
            return frozenset() if alias is None else frozenset({f"{alias}.{rest}" if rest else alias})
        if self._maybe_rebound(head):
            # The text test is conservative (``(custom_call)(...)`` looks like a parameter):
            # scope analysis decides, and only imports count.
            return self._exact_names(node)
        return frozenset(f"{b.qualified}.{rest}" if rest else b.qualified for b in bindings)

    def binding_for(self, qualified: str) -> Optional[str]:
        """Source text that names ``qualified`` through an existing top-level import.

        ``json.dumps`` -> ``"json.dumps"`` after ``import json``, ``"js.dumps"`` after
        ``import json as js``, ``"dumps"`` after ``from json import dumps``.
        """
        found = self.binding_and_prefix(qualified)
        return found[0] if found else None

    def imports_module(self, module: str) -> bool:
        """Whether a top-level ``import`` statement loads ``module`` (or a submodule of it)."""
        for b in self.imports:
            if not b.top_level:
                continue
            loaded = _imported_names(b.statement) if isinstance(b.statement, cst.Import) else [b.from_module or ""]
            if any(m == module or m.startswith(module + ".") for m in loaded):
                return True
        return False

    def binding_and_prefix(self, qualified: str) -> Optional[tuple[str, str]]:
        """Like :meth:`binding_for`, also returning the qualified name the binding holds."""
        best: Optional[tuple[int, str, str]] = None
        for binding in self.imports:
            if not binding.top_level or self._maybe_rebound(binding.local):
                continue
            if not self._single_binding(self._by_local[binding.local]):
                continue
            q = binding.qualified
            if qualified == q or qualified.startswith(q + "."):
                rest = qualified[len(q):]
                text = binding.local + rest
                # Prefer the longest import (the most specific binding).
                if best is None or len(q) > best[0]:
                    best = (len(q), text, q)
        return (best[1], best[2]) if best else None

    def is_bound(self, local: str) -> bool:
        """Whether ``local`` is taken in this module (by an import or otherwise)."""
        return local in self._by_local or self._maybe_rebound(local)

    def only_imports_package(self, local: str) -> bool:
        """Whether every binding of ``local`` is an import of the package of that name
        (``import jax`` in a function or a script block): a module-level ``import jax``
        beside them names the same object."""
        bindings = self._by_local.get(local)
        return bool(bindings) and all(b.qualified == local for b in bindings) and not self._maybe_rebound(local)

    @staticmethod
    def _same_import(bindings: list[ImportBinding]) -> bool:
        """Every binding, at module level or in a function, imports the same thing, and
        one of them is at module level."""
        return any(b.top_level for b in bindings) and len({b.qualified for b in bindings}) == 1

    @staticmethod
    def _single_binding(bindings: list[ImportBinding]) -> bool:
        """One module-level meaning: ``import jax`` next to ``import jax.numpy`` binds
        ``jax`` twice, to the same package."""
        first = bindings[0]
        return all(b.top_level and b.qualified == first.qualified for b in bindings)

    # -- tiers ---------------------------------------------------------------
    def _maybe_rebound(self, name: str) -> bool:
        hit = self._ambiguous.get(name)
        if hit is None:
            hit = False
            for start, end in rebinding_sites(self.source, name):
                # ``import x as name`` / ``from m import x as name`` are import bindings,
                # already in the table; everything else may shadow.
                # ``from m import a, name, b`` reads like a parameter list; ``import x as
                # name`` like a binding: import bindings, already in the table.
                line_start = self.source.rfind(b"\n", 0, start) + 1
                if _IMPORT_LINE.match(self.source[line_start:end]) and b";" not in self.source[line_start:end]:
                    continue
                if name in self._by_local and _import_fallback(self.source, start):
                    continue
                hit = True
                break
            self._ambiguous[name] = hit
        return hit

    def _exact_name(self, node: cst.CSTNode) -> Optional[str]:
        if self._exact is None:
            self._exact = dict(self.wrapper.resolve(QualifiedNameProvider))
        names = self._exact.get(node, set())
        if callable(names):  # QualifiedNameProvider computes each node's names lazily
            names = names()
        imported = [q.name for q in names if q.source == QualifiedNameSource.IMPORT]
        if len(imported) == 1 and len(names) == 1:
            return self._absolutise(imported[0])
        dotted = get_full_name_for_node(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        # The other meaning scope analysis found is a module-level one (``xla`` bound by
        # a fallback), not a class's own (``A.xla``): what classes bind is not it.
        module_level = dotted is not None and all(
            q.name == dotted for q in names if q.source != QualifiedNameSource.IMPORT)
        if len(imported) == 1 and dotted and self._only_fallbacks_rebind(dotted.partition(".")[0], module_level):
            return self._absolutise(imported[0])
        if len(imported) == len(names) == 2 and dotted:
            # The private module and its public twin, both imported at module level (a
            # local of the same name elsewhere sent resolution here): the last one holds.
            head, _, rest = dotted.partition(".")
            last = self._public_twin_last(self._by_local.get(head, []))
            if last is not None and {self._absolutise(q) for q in imported} == {
                    f"{b.qualified}.{rest}" if rest else b.qualified for b in self._by_local[head]}:
                return f"{last}.{rest}" if rest else last
        return None

    def _only_fallbacks_rebind(self, name: str, outside_classes: bool = False) -> bool:
        """Every place besides its imports that may bind ``name`` is an optional import's
        fallback (``except ImportError: jax = None``) or a name between brackets and commas
        (``hasattr(jax, "pxla")`` reads like a parameter list): scope analysis counts the
        fallback as a second meaning, but it runs only where the import failed. With
        ``outside_classes``, for a node no class body encloses, what a class body binds
        (envpool's method ``def xla(self)``) is that class's attribute and does not count."""
        known = self._fallbacks_only.get((name, outside_classes))
        if known is None:
            local = self._function_locals(name) + (self._class_bodies() if outside_classes else [])
            known = self._fallbacks_only[(name, outside_classes)] = all(
                self._benign_site(start, end) or any(a <= start < b for a, b in local)
                for start, end in rebinding_sites(self.source, name))
        return known

    def _class_bodies(self) -> list[tuple[int, int]]:
        """Byte span of each class body (:meth:`_function_bodies` reads both in one parse)."""
        self._function_bodies()
        return self._classes

    def _function_locals(self, name: str) -> list[tuple[int, int]]:
        """Byte spans of the function bodies where binding ``name`` makes a local of
        that function (it declares neither ``global`` nor ``nonlocal`` for it), when
        every import of ``name`` is at module level: a node that resolved to the import
        is not inside such a body, so nothing bound there can change what it names.
        Empty when an import is inside a function or Python cannot parse the file."""
        if not all(b.top_level for b in self._by_local.get(name, ())):
            return []
        return [(start, end) for start, end, declared in self._function_bodies() if name not in declared]

    def _function_bodies(self) -> list[tuple[int, int, frozenset[str]]]:
        """Byte span of each function body, with the names it (or a function inside it)
        declares ``global``/``nonlocal``; read once per module with Python's parser."""
        if self._bodies is not None:
            return self._bodies
        self._bodies = []
        self._classes = []
        try:
            tree = ast.parse(self.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return self._bodies
        starts = [0]
        starts.extend(match.end() for match in re.finditer(rb"\n", self.source))

        def offset(line: int, col: int) -> int:
            return starts[line - 1] + col if line - 1 < len(starts) else len(self.source)

        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
                declared = frozenset(name for inner in ast.walk(node) if isinstance(inner, (ast.Global, ast.Nonlocal))
                                     for name in inner.names)
                first = node.body[0]
                self._bodies.append((offset(first.lineno, first.col_offset),
                                     offset(node.end_lineno, node.end_col_offset), declared))
            elif isinstance(node, ast.ClassDef) and node.body:
                first = node.body[0]
                self._classes.append((offset(first.lineno, first.col_offset), offset(node.end_lineno, node.end_col_offset)))
        return self._bodies

    def _benign_site(self, start: int, end: int) -> bool:
        """An import line, a name between brackets and commas, or an import's fallback."""
        line_start = self.source.rfind(b"\n", 0, start) + 1
        line = self.source[line_start:end]
        if _IMPORT_LINE.match(line) and b";" not in line:
            return True
        return self.source[start:start + 1] in (b"(", b",") or _import_fallback(self.source, start)

    def _exact_names(self, node: cst.CSTNode) -> frozenset[str]:
        if self._exact is None:
            self._exact = dict(self.wrapper.resolve(QualifiedNameProvider))
        names = self._exact.get(node, set())
        if callable(names):
            names = names()
        if not names or any(q.source != QualifiedNameSource.IMPORT for q in names):
            return frozenset()
        return frozenset(self._absolutise(q.name) for q in names)

    def _absolutise(self, name: str) -> str:
        if not name.startswith("."):
            return name
        dots = len(name) - len(name.lstrip("."))
        return resolve_relative(self.package, dots, name[dots:])
