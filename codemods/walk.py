"""One read-only walk of a parsed module for all rules at once, recording parents on the way.

LibCST's own traversal rebuilds every node it passes (a visitor may replace children,
so each node is reconstructed and validated), which costs about as much as the parse.
Rules never change the tree, so this walk only reads: it visits the same nodes in the
same order as LibCST's (the order each node class's ``_visit_and_replace_children``
visits its fields, read from LibCST itself), calls the rules' ``visit_<Type>`` and
``leave_<Type>`` methods as a batched traversal does, and records each node's parent,
which is what rules ask most about a site (the enclosing call, statement, function).
"""

from __future__ import annotations

import linecache
import re
from typing import Callable, Iterable, Optional, Sequence

import libcst as cst
from libcst import MaybeSentinel

_FIELD = re.compile(r'visit_\w+\(\s*self,\s*"(\w+)"')
_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(cls: type) -> tuple[str, ...]:
    """Fields of ``cls`` that hold child nodes, in the order LibCST visits them.

    Read from the source of the class's ``_visit_and_replace_children``: every child is
    visited by a ``visit_*(self, "<field>", ...)`` call there, in source order. The
    source of a few hundred lines is read once per process (``linecache``), which costs
    less than asking ``inspect`` for each class.
    """
    found = _FIELDS.get(cls)
    if found is None:
        code = cls._visit_and_replace_children.__code__
        lines = linecache.getlines(code.co_filename)
        start = code.co_firstlineno - 1
        indent = len(lines[start]) - len(lines[start].lstrip())
        end = start + 1
        while end < len(lines):
            line = lines[end]
            text = line.strip()
            # The method ends at the next line indented no deeper than its ``def`` (the
            # closing parenthesis of a wrapped signature excepted).
            if text and len(line) - len(line.lstrip()) <= indent and not text.startswith(")"):
                break
            end += 1
        found = _FIELDS[cls] = tuple(dict.fromkeys(_FIELD.findall("".join(lines[start:end]))))
    return found


def _trivia() -> frozenset[type]:
    """Node classes that hold only whitespace, comments and punctuation, themselves
    built of the same: most nodes of a module (whitespace alone is about 40%)."""
    from libcst._nodes import op, whitespace

    found = {
        cls
        for module in (op, whitespace)
        for cls in vars(module).values()
        if isinstance(cls, type) and issubclass(cls, cst.CSTNode) and cls.__module__ == module.__name__
    }
    found.update((cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
                  cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.Asynchronous))
    return frozenset(found)


#: See :func:`_trivia`. A walk whose visitors look at none of them records the parent of
#: each but does not descend into it.
TRIVIA = _trivia()


def hooks_trivia(methods: Iterable[str]) -> bool:
    """Whether some of ``methods`` (``visit_<Type>``/``leave_<Type>`` names) look at trivia."""
    names = {cls.__name__ for cls in TRIVIA}
    return any(name.split("_", 1)[1] in names for name in methods)


def visitor_methods(visitors: Iterable[cst.BatchableCSTVisitor]) -> dict[str, list[Callable]]:
    methods: dict[str, list[Callable]] = {}
    for visitor in visitors:
        for name, method in visitor.get_visitors().items():
            methods.setdefault(name, []).append(method)
    return methods


def walkable(methods: dict[str, list[Callable]]) -> bool:
    """Whether :func:`walk` serves these methods (it has no per-attribute hooks such as
    ``visit_Call_func``, which no rule uses)."""
    return not any(name.count("_") > 1 and name.split("_", 2)[1][:1].isupper() for name in methods)


# A field named by a ``visit_*`` call holds a node, a tuple or list of nodes, ``None`` or
# ``MaybeSentinel``: testing the exact type is much cheaper than ``isinstance`` against the
# abstract ``CSTNode``.


class Walk:
    """A batched, read-only traversal that fills ``parents`` (node -> parent node)."""

    def __init__(self, methods: dict[str, list[Callable]], parents: dict) -> None:
        self.methods = methods
        self.parents = parents
        #: The node whose visit or leave methods are running (``None`` outside the walk).
        self.current: Optional[cst.CSTNode] = None
        self._plan: dict[type, tuple] = {}
        #: Classes whose nodes get a parent but are not descended into: below them, the
        #: parents are left unrecorded (``FileContext.parent_of`` records them if asked).
        self.skipped: frozenset = frozenset() if hooks_trivia(methods) else TRIVIA
        #: Top-level statements a plan kept every visitor out of: no parent below them
        #: is recorded.
        self.unwalked: list[cst.CSTNode] = []

    def run(self, module: cst.Module, plan: Optional["Plan"] = None) -> None:
        """Walk ``module``; with a ``plan``, each top-level statement only for the
        visitors the plan gives it (none: the statement is not descended into)."""
        self.parents[module] = None
        try:
            if plan is None:
                self._step(module)
            else:
                self._step_module(module, plan)
        finally:
            self.current = None

    def _step_module(self, module: cst.Module, plan: "Plan") -> None:
        everyone = (self.methods, self._plan)
        chosen: dict[frozenset, tuple] = {}
        visits, leaves, _ = self._plan_of(cst.Module)
        self._call(visits, module)
        self._lines(module, module.header)
        for stmt, subset in zip(module.body, plan.subsets):
            self.parents[stmt] = module
            if subset is None:
                self._step(stmt)
            elif subset:
                self.methods, self._plan = chosen.get(subset) or chosen.setdefault(subset, (plan.methods_of(subset), {}))
                try:
                    self._step(stmt)
                finally:
                    self.methods, self._plan = everyone
            else:
                self.unwalked.append(stmt)
        self._lines(module, module.footer)
        self._call(leaves, module)

    def _lines(self, module: cst.Module, lines: Sequence[cst.EmptyLine]) -> None:
        for line in lines:
            self.parents[line] = module
            if type(line) not in self.skipped:
                self._step(line)

    def _call(self, methods: tuple, node: cst.CSTNode) -> None:
        if methods:
            self.current = node
            for method in methods:
                method(node)

    def _plan_of(self, cls: type) -> tuple:
        plan = self._plan.get(cls)
        if plan is None:
            name = cls.__name__
            plan = self._plan[cls] = (
                tuple(self.methods.get("visit_" + name, ())),
                tuple(self.methods.get("leave_" + name, ())),
                child_fields(cls),
            )
        return plan

    def _step(self, node: cst.CSTNode) -> None:
        cls = type(node)
        plan = self._plan.get(cls)
        if plan is None:
            plan = self._plan_of(cls)
        visits, leaves, fields = plan
        parents = self.parents
        skipped = self.skipped
        if visits:
            self.current = node
            for method in visits:
                method(node)
        for field in fields:
            value = getattr(node, field)
            kind = type(value)
            if kind is tuple or kind is list:
                for child in value:
                    parents[child] = node
                    if type(child) not in skipped:
                        self._step(child)
            elif value is not None and kind is not MaybeSentinel:
                parents[value] = node
                if kind not in skipped:
                    self._step(value)
        if leaves:
            self.current = node
            for method in leaves:
                method(node)


class Plan:
    """Which visitors walk each top-level statement of a module.

    ``subsets[k]`` is ``None`` when every visitor walks ``module.body[k]``, else the
    indices of those that do (empty: nobody, the statement is skipped).
    """

    __slots__ = ("subsets", "visitors")

    def __init__(self, subsets: list[Optional[frozenset]], visitors: list) -> None:
        self.subsets = subsets
        self.visitors = visitors

    def methods_of(self, subset: frozenset) -> dict[str, list[Callable]]:
        return visitor_methods(self.visitors[i] for i in sorted(subset))


_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def statement_plan(
    module: cst.Module, texts: Optional[list[bytes]], visitors: list, triggers: list[tuple[bytes, ...]], scoped: list[bool]
) -> Optional[Plan]:
    """A :class:`Plan` in which each statement-scoped visitor walks only the top-level
    statements that can concern it; ``None`` when every visitor walks everything.

    A statement concerns a visitor when its text (leading comments included) holds one
    of the visitor's ``triggers``, or names, as a whole word, something bound at module
    level by a statement that concerns the visitor: an import alias of a legacy module,
    a helper function that calls a legacy API, a class, an assigned value. Each such
    name brings in the statements that use it, and what they bind in turn. Where the
    bindings cannot be read off the tree (``global`` in a function, ``import *``, a
    walrus at module level, a non-ASCII name), the visitor walks everything.
    ``texts[k]`` is the source of ``module.body[k]``.
    """
    if texts is None or not any(scoped):
        return None
    body = module.body
    count = len(body)
    words: list[Optional[frozenset]] = [None] * count
    bound: dict[int, Optional[frozenset]] = {}
    wanted: list[set[int]] = [set() for _ in range(count)]
    for index, visitor in enumerate(visitors):
        ks: Optional[set[int]] = None
        if scoped[index]:
            ks = _concerning(body, texts, triggers[index], words, bound)
        for k in range(count) if ks is None else ks:
            wanted[k].add(index)
    everyone = len(visitors)
    subsets = [None if len(w) == everyone else frozenset(w) for w in wanted]
    if all(subset is None for subset in subsets):
        return None
    return Plan(subsets, visitors)


def _concerning(
    body: Sequence[cst.CSTNode], texts: list[bytes], triggers: tuple[bytes, ...], words: list, bound: dict
) -> Optional[set[int]]:
    """Indices of the statements of ``body`` that concern a visitor with ``triggers``
    (see :func:`statement_plan`); ``None`` for all of them."""
    found = {k for k, text in enumerate(texts) if any(t in text for t in triggers)}
    names: set[bytes] = set()
    frontier = list(found)
    while frontier:
        new: set[bytes] = set()
        for k in frontier:
            if k not in bound:
                bound[k] = _bound_names(body[k], texts[k])
            binds = bound[k]
            if binds is None:
                return None
            new.update(binds)
        new -= names
        if not new:
            break
        names |= new
        frontier = []
        for k, text in enumerate(texts):
            if k in found:
                continue
            if words[k] is None:
                words[k] = frozenset(_WORD.findall(text))
            if not words[k].isdisjoint(new):
                found.add(k)
                frontier.append(k)
    return found


def _bound_names(stmt: cst.CSTNode, text: bytes) -> Optional[frozenset]:
    """Names (as bytes) a top-level statement binds in the module's namespace; ``None``
    when that cannot be told from the tree."""
    if b"global" in text or b":=" in text:
        return None
    names: set[str] = set()
    stack: list = [stmt]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.SimpleStatementLine or kind is cst.IndentedBlock or kind is cst.SimpleStatementSuite:
            stack.extend(node.body)
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            names.add(node.name.value)
        elif kind is cst.Import:
            for alias in node.names:
                if alias.asname is not None:
                    _target_names(alias.asname.name, names)
                else:
                    top = alias.name
                    while isinstance(top, cst.Attribute):
                        top = top.value
                    _target_names(top, names)
        elif kind is cst.ImportFrom:
            if isinstance(node.names, cst.ImportStar):
                return None
            for alias in node.names:
                _target_names(alias.asname.name if alias.asname is not None else alias.name, names)
        elif kind is cst.Assign:
            for target in node.targets:
                _target_names(target.target, names)
        elif kind is cst.AnnAssign or kind is cst.AugAssign:
            _target_names(node.target, names)
        elif kind is cst.If or kind is cst.While:
            stack.append(node.body)
            if node.orelse is not None:
                stack.append(node.orelse)
        elif kind is cst.Else or kind is cst.Finally:
            stack.append(node.body)
        elif kind is cst.Try or kind is cst.TryStar:
            stack.append(node.body)
            stack.extend(node.handlers)
            if node.orelse is not None:
                stack.append(node.orelse)
            if node.finalbody is not None:
                stack.append(node.finalbody)
        elif kind is cst.ExceptHandler or kind is cst.ExceptStarHandler:
            if node.name is not None:
                _target_names(node.name.name, names)
            stack.append(node.body)
        elif kind is cst.For:
            _target_names(node.target, names)
            stack.append(node.body)
            if node.orelse is not None:
                stack.append(node.orelse)
        elif kind is cst.With:
            for item in node.items:
                if item.asname is not None:
                    _target_names(item.asname.name, names)
            stack.append(node.body)
        elif isinstance(node, cst.BaseCompoundStatement):
            return None  # ``match`` and whatever a later grammar adds: bindings unknown
    try:
        return frozenset(name.encode("ascii") for name in names)
    except UnicodeEncodeError:
        return None


def _target_names(node: cst.CSTNode, names: set[str]) -> None:
    kind = type(node)
    if kind is cst.Name:
        names.add(node.value)
    elif kind is cst.Tuple or kind is cst.List:
        for element in node.elements:
            _target_names(element.value, names)
    elif kind is cst.StarredElement:
        _target_names(node.value, names)


def record_parents(node: cst.CSTNode, parents: dict) -> None:
    """Parent of every node under ``node`` (not of ``node`` itself), without visitors."""
    stack = [node]
    pop, push = stack.pop, stack.append
    while stack:
        current = pop()
        for field in child_fields(type(current)):
            value = getattr(current, field)
            kind = type(value)
            if kind is tuple or kind is list:
                for child in value:
                    parents[child] = current
                    push(child)
            elif value is not None and kind is not MaybeSentinel:
                parents[value] = current
                push(value)


def read(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """``node.visit(visitor)`` for a visitor that only reads, without rebuilding the tree.

    The visitor's ``on_visit``/``on_leave`` run as in LibCST (so ``visit_<Type>``
    returning ``False`` skips the node's children); a visitor with per-attribute hooks
    (``visit_<Type>_<field>``) is handed to LibCST's own traversal.
    """
    cls = type(visitor)
    if _attribute_hooks(cls):
        node.visit(visitor)
    elif cls.on_visit is cst.CSTVisitor.on_visit and cls.on_leave is cst.CSTVisitor.on_leave:
        _Reader(visitor).step(node)
    else:
        _read(node, visitor.on_visit, visitor.on_leave)


class _Reader:
    """What ``CSTVisitor.on_visit``/``on_leave`` do, with each node class's methods
    looked up once per walk instead of by name at every node."""

    def __init__(self, visitor: cst.CSTVisitor) -> None:
        self.visitor = visitor
        self.plan: dict[type, tuple] = {}

    def _method(self, name: str) -> Optional[Callable]:
        method = getattr(self.visitor, name, None)
        return None if method is None or getattr(method, "_is_no_op", False) else method

    def step(self, node: cst.CSTNode) -> None:
        cls = type(node)
        plan = self.plan.get(cls)
        if plan is None:
            plan = self.plan[cls] = (
                self._method("visit_" + cls.__name__),
                self._method("leave_" + cls.__name__),
                child_fields(cls),
            )
        visit, leave, fields = plan
        if visit is None or visit(node) is not False:
            for field in fields:
                value = getattr(node, field)
                kind = type(value)
                if kind is tuple or kind is list:
                    for child in value:
                        self.step(child)
                elif value is not None and kind is not MaybeSentinel:
                    self.step(value)
        if leave is not None:
            leave(node)


def _read(node: cst.CSTNode, on_visit: Callable, on_leave: Callable) -> None:
    if on_visit(node):
        for field in child_fields(type(node)):
            value = getattr(node, field)
            kind = type(value)
            if kind is tuple or kind is list:
                for child in value:
                    _read(child, on_visit, on_leave)
            elif value is not None and kind is not MaybeSentinel:
                _read(value, on_visit, on_leave)
    on_leave(node)


_HOOKS: dict[type, bool] = {}


def _attribute_hooks(cls: type) -> bool:
    found = _HOOKS.get(cls)
    if found is None:
        names = {
            name: []
            for name in dir(cls)
            if name.startswith(("visit_", "leave_")) and not getattr(getattr(cls, name), "_is_no_op", False)
        }
        found = _HOOKS[cls] = not walkable(names)
    return found


def reads_in(node: cst.CSTNode) -> set[str]:
    """Identifiers below ``node`` that read a variable: not an attribute's name
    (``m.xla_client``), a keyword (``f(xla_client=...)``) or part of an import
    (``from jaxlib.xla_client import XlaOp`` reads no ``xla_client``)."""
    names: set[str] = set()

    class _Reads(cst.CSTVisitor):
        def visit_Import(self, _node: cst.Import) -> bool:
            return False

        def visit_ImportFrom(self, _node: cst.ImportFrom) -> bool:
            return False

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            read(attribute.value, self)
            return False

        def visit_Arg(self, arg: cst.Arg) -> bool:
            read(arg.value, self)
            return False

        def visit_Name(self, name: cst.Name) -> None:
            names.add(name.value)

    read(node, _Reads())
    return names


def names_in(node: cst.CSTNode) -> set[str]:
    """Every identifier read or written anywhere below ``node`` (``Name`` nodes only)."""
    names: set[str] = set()

    class _Names(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            names.add(name.value)

    read(node, _Names())
    return names
