"""Questions the API rules ask about where a site sits: which lowering rule holds it,
what that rule's context parameter is called, and whether a compatibility guard keeps it
for older jax releases.

Not a rule itself (it defines no :class:`codemods.rule.Rule`), so the rule discovery
imports it and finds nothing to register.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterator, Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods.context import FileContext

#: Parameter names that lowering rules give their ``LoweringRuleContext`` in public code.
CONTEXT_NAMES = frozenset({"ctx", "c", "context", "lowering_ctx", "lctx", "ctx_", "_ctx", "rule_ctx", "mlir_ctx"})
#: Attributes only a ``LoweringRuleContext`` has; reading one proves what the parameter is.
CONTEXT_ATTRS = frozenset({"avals_in", "avals_out", "module_context", "tokens_in", "set_tokens_out"})
#: Exceptions whose handler makes a ``try`` a compatibility guard.
GUARD_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError"})
_VERSION_TEST = re.compile(r"version|hasattr\s*\(|getattr\s*\(", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class LoweringRule:
    """The function a site is lowered in, and its context parameter."""

    function: cst.FunctionDef
    ctx_name: str
    #: Positional parameters after the context: one per ``ctx.avals_in`` entry.
    operand_params: tuple[str, ...]
    #: Name of ``*args`` when the rule takes its operands that way.
    vararg: Optional[str]


def ancestors(ctx: FileContext, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    parents = ctx.parents
    current = parents.get(node)
    while current is not None:
        yield current
        current = parents.get(current)


def parent(ctx: FileContext, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    return ctx.parents.get(node)


def enclosing_lowering_rule(ctx: FileContext, node: cst.CSTNode) -> Optional[LoweringRule]:
    """The innermost enclosing function whose first parameter is a lowering context.

    A parameter counts when its annotation names ``LoweringRuleContext``, when it has a
    name public lowering rules use for the context (``ctx``, ``c``...), or when the
    function reads ``<param>.avals_in`` / ``.avals_out`` / ``.module_context``.
    """
    for ancestor in ancestors(ctx, node):
        if not isinstance(ancestor, cst.FunctionDef):
            continue
        params = _positional(ancestor, ctx)
        if not params:
            continue
        first = params[0]
        name = first.name.value
        annotation = first.annotation
        annotated = annotation is not None and "LoweringRuleContext" in ctx.module.code_for_node(annotation.annotation)
        if annotated or name in CONTEXT_NAMES or _reads_context_attr(ancestor, name):
            star = ancestor.params.star_arg
            vararg = star.name.value if isinstance(star, cst.Param) else None
            return LoweringRule(ancestor, name, tuple(p.name.value for p in params[1:]), vararg)
    return None


def _positional(function: cst.FunctionDef, ctx: FileContext) -> list[cst.Param]:
    params = [*function.params.posonly_params, *function.params.params]
    if params and params[0].name.value in ("self", "cls") and isinstance(parent_class(ctx, function), cst.ClassDef):
        if not any(get_full_name_for_node(d.decorator) == "staticmethod" for d in function.decorators):
            params = params[1:]
    return params


def parent_class(ctx: FileContext, function: cst.FunctionDef) -> Optional[cst.CSTNode]:
    for ancestor in ancestors(ctx, function):
        if isinstance(ancestor, (cst.ClassDef, cst.FunctionDef)):
            return ancestor
    return None


class _AttrReads(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        if isinstance(node.value, cst.Name) and node.value.value == self.name and node.attr.value in CONTEXT_ATTRS:
            self.found = True
        return not self.found


def _reads_context_attr(function: cst.FunctionDef, name: str) -> bool:
    reader = _AttrReads(name)
    function.body.visit(reader)
    return reader.found


def compatibility_guard(ctx: FileContext, node: cst.CSTNode) -> Optional[str]:
    """A short description of the guard that selects ``node`` by jax version, if any.

    Guards are ``if`` statements (and conditional expressions) testing a version or
    ``hasattr``/``getattr``, and ``try`` blocks whose handlers catch ``ImportError``,
    ``ModuleNotFoundError`` or ``AttributeError``.
    """
    child = node
    for ancestor in ancestors(ctx, node):
        if isinstance(ancestor, (cst.IndentedBlock, cst.Module)):
            early = _early_exit_guard(ctx, ancestor, child)
            if early is not None:
                return early
        if isinstance(ancestor, (cst.If, cst.IfExp)) and child is not ancestor.test:
            test = ctx.module.code_for_node(ancestor.test)
            if _VERSION_TEST.search(test):
                return f"`if {' '.join(test.split())}`"
        elif isinstance(ancestor, cst.Try) and child is not ancestor.finalbody:
            caught = _caught(ancestor)
            if caught:
                return f"`try: ... except {caught}`"
        child = ancestor
    return None


def _early_exit_guard(ctx: FileContext, block: cst.CSTNode, child: cst.CSTNode) -> Optional[str]:
    """``if <version test>: return ...`` earlier in the block: what follows serves the
    releases that fail the test."""
    for stmt in block.body:
        if stmt is child:
            return None
        if isinstance(stmt, cst.If) and _VERSION_TEST.search(ctx.module.code_for_node(stmt.test)):
            body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else []
            last = body[-1] if body else None
            if isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], (cst.Return, cst.Raise)):
                test = " ".join(ctx.module.code_for_node(stmt.test).split())
                return f"`if {test}: return ...` earlier in the block"
    return None


def _caught(stmt: cst.Try) -> Optional[str]:
    for handler in stmt.handlers:
        if handler.type is None:
            continue
        names = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
        for element in names:
            value = element.value if isinstance(element, cst.Element) else element
            dotted = get_full_name_for_node(value) or ""
            if dotted.rsplit(".", 1)[-1] in GUARD_EXCEPTIONS:
                return dotted
    return None


def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def short(code: str, limit: int = 70) -> str:
    code = " ".join(code.split())
    return code if len(code) <= limit else code[: limit - 3] + "..."


def member_spelling(ctx: FileContext, module: str, attr: str, moved_from: Optional[str] = None) -> str:
    """Source text for ``module.attr``, importing it once when nothing binds it yet.

    Unlike a lookup through the top package (``import jax`` does not load
    ``jax.extend.core``), only an import of ``module`` itself or of the member counts.
    ``moved_from`` names a legacy spelling whose ``from`` import another edit of this rule
    turns into an import of the member (so its local name will be the member).
    """
    wanted = f"{module}.{attr}"
    for binding in ctx.names.imports:
        if not binding.top_level or ctx.names._maybe_rebound(binding.local):
            continue
        if binding.qualified == wanted or (moved_from is not None and binding.qualified == moved_from and binding.from_module):
            return binding.local
        if binding.qualified == module and (binding.from_module is not None or binding.local != module.split(".")[0]):
            return f"{binding.local}.{attr}"
        if isinstance(binding.statement, cst.Import):
            for alias in binding.statement.names:
                if alias.asname is None and get_full_name_for_node(alias.name) == module:
                    return wanted
    if not ctx.names.is_bound(attr):
        ctx.add_import(module, attr)
        return attr
    ctx.add_import(module)
    return wanted
