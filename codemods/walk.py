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
from typing import Callable, Iterable, Optional

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

    def run(self, module: cst.Module) -> None:
        self.parents[module] = None
        try:
            self._step(module)
        finally:
            self.current = None

    def _step(self, node: cst.CSTNode) -> None:
        cls = type(node)
        plan = self._plan.get(cls)
        if plan is None:
            name = cls.__name__
            plan = self._plan[cls] = (
                tuple(self.methods.get("visit_" + name, ())),
                tuple(self.methods.get("leave_" + name, ())),
                child_fields(cls),
            )
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


def names_in(node: cst.CSTNode) -> set[str]:
    """Every identifier read or written anywhere below ``node`` (``Name`` nodes only)."""
    names: set[str] = set()

    class _Names(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            names.add(name.value)

    read(node, _Names())
    return names
