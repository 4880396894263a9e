"""Questions the rules ask about a site: the arguments of a call, the name a node resolves
to (through module-level aliases), the import that bound it, where it sits in the tree
(enclosing function, enclosing lowering rule), and whether a compatibility guard keeps it
for older jax releases.

Not a rule itself (it defines no :class:`codemods.rule.Rule`), so the rule discovery
imports it and finds nothing to register.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
from functools import lru_cache
from typing import Callable, Iterator, Optional, Sequence, Union

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods import walk
from codemods.context import FileContext
from codemods.rules._installed_jax import first_missing, installed_version

# -- call arguments ------------------------------------------------------------------


#: ``a, b`` and ``key=value``: the separators rewritten calls are written with.
SPACED_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
TIGHT_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def bind_arguments(call: cst.Call, params: tuple[str, ...], others: bool = False) -> Optional[dict[str, cst.Arg]]:
    """The call's arguments by parameter name (positional ones in ``params`` order);
    ``None`` for ``*``/``**``, a name given twice, or a keyword not in ``params`` unless
    ``others`` (then kept, in call order, after the parameters)."""
    bound: dict[str, cst.Arg] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        name = arg.keyword.value if arg.keyword is not None else (params[index] if index < len(params) else None)
        if name is None or (name not in params and not others) or name in bound:
            return None
        bound[name] = arg
    if not others:
        return bound
    return {**{p: bound[p] for p in params if p in bound}, **{k: a for k, a in bound.items() if k not in params}}


def positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def keyword_value(call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    """The value passed as ``name=...``, if any."""
    arg = keyword(call, name)
    return arg.value if arg is not None else None


def added_terms(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The pieces of ``a + b + c`` (``[node]`` when it is no ``+``), in no fixed order."""
    terms: list[cst.BaseExpression] = []
    stack = [node]
    while stack:
        term = stack.pop()
        if isinstance(term, cst.BinaryOperation) and isinstance(term.operator, cst.Add):
            stack += [term.left, term.right]
        else:
            terms.append(term)
    return terms


def literal_bytes_as_str(node: cst.BaseExpression) -> Optional[cst.SimpleString]:
    """``b"name"`` -> ``"name"`` when the literal is plain ASCII; else ``None``."""
    if not isinstance(node, cst.SimpleString):
        return None
    prefix = node.prefix.lower()
    if "b" not in prefix:
        return None
    value = node.evaluated_value
    if not isinstance(value, bytes):
        return None
    try:
        text = value.decode("ascii")
    except UnicodeDecodeError:
        return None
    if not text.isprintable():
        return None
    quote = node.quote
    body = node.value[len(node.prefix) + len(quote): -len(quote)]
    new_prefix = node.prefix.replace("b", "").replace("B", "")
    return cst.SimpleString(f"{new_prefix}{quote}{body}{quote}")


UTF8_COMPATIBLE = {"utf8", "utf-8", "utf_8", "ascii", "us-ascii"}


def encoded_text(node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``x`` of ``x.encode()`` / ``x.encode("utf8")`` (``"ascii"`` too): only ``str`` has
    ``encode``, and decoding its bytes as UTF-8 gives ``x`` back, so a place that decodes
    the name can take ``x`` itself. ``None`` for any other expression or encoding."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "encode"):
        return None
    if len(node.args) > 1 or any(a.star or (a.keyword is not None and a.keyword.value != "encoding") for a in node.args):
        return None
    if node.args:
        value = node.args[0].value
        if not (isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str)
                and value.evaluated_value.lower() in UTF8_COMPATIBLE):
            return None
    return node.func.value


# -- names and imports ---------------------------------------------------------------


def head_name(node: cst.BaseExpression) -> Optional[str]:
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def qualified_through_alias(ctx: FileContext, node: cst.CSTNode, depth: int = 0) -> Optional[str]:
    """Qualified name of ``node``, following ``alias = module.attr`` bindings made once.

    ``xops = xla_client.ops`` then ``xops.CustomCall`` gives
    ``jax.lib.xla_client.ops.CustomCall``.
    """
    qual = ctx.qualified_name(node)
    if qual is not None or depth > 3:
        return qual
    dotted = get_full_name_for_node(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
    if not dotted:
        return None
    head_node = node
    while isinstance(head_node, cst.Attribute):
        head_node = head_node.value
    if not isinstance(head_node, cst.Name) or head_node.value not in ctx.aliases():
        return None
    bound = _bound_once(ctx, head_node)
    if not isinstance(bound, (cst.Name, cst.Attribute)):
        return None
    base = qualified_through_alias(ctx, bound, depth + 1)
    if base is None:
        return None
    rest = dotted[len(head_node.value):]
    return base + rest


def heads_importing(ctx: FileContext, prefixes: tuple[str, ...]) -> set[str]:
    """Local names bound by an import of something under one of ``prefixes``.

    A cheap test from the import table alone: an attribute chain whose head is not in
    this set cannot resolve to those modules, so the (possibly costly) exact name
    resolution is skipped for it.
    """
    heads = set()
    bound = [(binding.local, binding.qualified) for binding in ctx.names.imports]
    if ctx.names.imports:
        # ``_xla = cast(Any, xla)``: another name for an imported module.
        bound.extend(ctx.names.module_aliases().items())
    for local, qual in bound:
        if any(qual == p or qual.startswith(p + ".") or p.startswith(qual + ".") for p in prefixes):
            heads.add(local)
    return heads


def drop_binding_if_unused(ctx: FileContext, head: str) -> None:
    """Ask for the import binding ``head`` to be removed once nothing uses it."""
    for binding in ctx.names.imports:
        if binding.local != head:
            continue
        if not binding.top_level and not (isinstance(binding.statement, cst.Import) and (
                binding.qualified == head or _imports_as(binding.statement, head))) and binding.from_module is None:
            continue  # (a plain import, an ``import a.b as head``, or a from-import, inside a function is dropped the same way)
        if binding.from_module is not None:
            obj = binding.qualified[len(binding.from_module) + 1:]
            ctx.remove_import_if_unused(binding.from_module, obj, head if head != obj else None)
        elif binding.qualified != head:  # import a.b as head
            ctx.remove_import_if_unused(binding.qualified, None, head)
        elif isinstance(binding.statement, cst.Import):
            # ``import jaxlib.hlo_helpers`` binds ``jaxlib``: the dotted module is what goes
            # (the import fails on the jax that deleted it), once no ``jaxlib.hlo_helpers.x``
            # is left. A plain ``import jax`` beside it is never touched.
            for alias in binding.statement.names:
                full = get_full_name_for_node(alias.name) or ""
                if alias.asname is None and full.startswith(head + ".") and _is_deleted(full):
                    ctx.remove_dotted_import_if_unused(full)


def _imports_as(statement: cst.Import, local: str) -> bool:
    """``import a.b as local``: an alias of ``statement`` binds ``local`` with ``as``."""
    return any(alias.asname is not None and get_full_name_for_node(alias.asname.name) == local for alias in statement.names)


def _is_deleted(module: str) -> bool:
    from codemods.engine import DELETED_MODULES

    return any(module == m or module.startswith(m + ".") for m in DELETED_MODULES)


def imported_aliases(node: cst.ImportFrom, module: str, name: str) -> list[cst.ImportAlias]:
    """The aliases importing ``name`` in ``node`` when it is ``from <module> import ...``;
    none for a relative or star import."""
    if node.relative or isinstance(node.names, cst.ImportStar) or get_full_name_for_node(node.module) != module:
        return []
    return [a for a in node.names if get_full_name_for_node(a.name) == name]


def import_without(
    updated: Union[cst.Import, cst.ImportFrom], drop: Callable[[cst.ImportAlias], bool]
) -> Union[cst.Import, cst.ImportFrom, cst.RemovalSentinel]:
    """``updated`` without the aliases ``drop`` picks; the whole statement goes when none
    is left, and the last kept alias loses a trailing comma."""
    names = [a for a in updated.names if not drop(a)]
    if not names:
        return cst.RemoveFromParent()
    names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return updated.with_changes(names=names)


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
    found = ctx.enclosing_binding(wanted, ctx.site) if ctx.site is not None else None
    if found is not None and found[1] in (module, wanted):
        return found[0]  # imported by the function around the site
    if not ctx.names.is_bound(attr):
        ctx.add_import(module, attr)
        return attr
    ctx.add_import(module)
    return wanted


# -- where a site sits ---------------------------------------------------------------


def dotted_names(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """The outermost dotted names (``jax.interpreters.xla.XlaOp``, ``XlaOp``) under ``node``,
    as in an annotation."""
    found: list = []

    class _Dotted(cst.CSTVisitor):
        def visit_Attribute(self, n: cst.Attribute) -> bool:
            found.append(n)
            return False

        def visit_Name(self, n: cst.Name) -> None:
            found.append(n)

    walk.read(node, _Dotted())
    return found


def forwarded_builder_call(function: cst.FunctionDef) -> Optional[cst.Call]:
    """``B(*args, **kwargs)`` when ``function`` is ``def f(*args, **kwargs)`` whose body is
    ``return B(*args, **kwargs).results``, alone or as the body of a ``try`` whose handlers
    catch only TypeError (the signature fallback)."""
    params = function.params
    if function.decorators or function.asynchronous or params.params or params.posonly_params or params.kwonly_params \
            or not isinstance(params.star_arg, cst.Param) or not isinstance(params.star_kwarg, cst.Param):
        return None
    body = list(function.body.body)
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) \
            and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        body = body[1:]  # the docstring
    if len(body) != 1:
        return None
    stmt = body[0]
    if isinstance(stmt, cst.Try):
        if stmt.orelse is not None or stmt.finalbody is not None or not stmt.handlers \
                or any(get_full_name_for_node(h.type) != "TypeError" if h.type is not None else True for h in stmt.handlers):
            return None
        if len(stmt.body.body) != 1:
            return None
        stmt = stmt.body.body[0]
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Return)):
        return None
    value = stmt.body[0].value
    if not (isinstance(value, cst.Attribute) and value.attr.value == "results" and isinstance(value.value, cst.Call)):
        return None
    call = value.value
    forwarded = [(a.star, get_full_name_for_node(a.value)) for a in call.args]
    if forwarded != [("*", params.star_arg.name.value), ("**", params.star_kwarg.name.value)]:
        return None
    return call


def ancestors(ctx: FileContext, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    parents = ctx.parents
    current = parents.get(node)
    while current is not None:
        yield current
        current = parents.get(current)


def parent(ctx: FileContext, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    return ctx.parents.get(node)


def is_called(ctx: FileContext, node: cst.CSTNode) -> bool:
    """Whether ``node`` is the callee of a call (``node(...)``)."""
    up = ctx.parents.get(node)
    return isinstance(up, cst.Call) and up.func is node


def parent_class(ctx: FileContext, function: cst.FunctionDef) -> Optional[cst.CSTNode]:
    """The class or function ``function`` is defined in (``None`` at module level)."""
    for ancestor in ancestors(ctx, function):
        if isinstance(ancestor, (cst.ClassDef, cst.FunctionDef)):
            return ancestor
    return None


#: Parameter names that lowering rules give their ``LoweringRuleContext`` in public code.
CONTEXT_NAMES = frozenset({"ctx", "c", "context", "lowering_ctx", "lctx", "ctx_", "_ctx", "rule_ctx", "mlir_ctx"})
#: Attributes only a ``LoweringRuleContext`` has; reading one proves what the parameter is.
CONTEXT_ATTRS = frozenset({"avals_in", "avals_out", "module_context", "tokens_in", "set_tokens_out"})


@dataclasses.dataclass(frozen=True)
class LoweringRule:
    """The function a site is lowered in, and its context parameter."""

    function: cst.FunctionDef
    ctx_name: str
    #: Positional parameters after the context: one per ``ctx.avals_in`` entry.
    operand_params: tuple[str, ...]
    #: Name of ``*args`` when the rule takes its operands that way.
    vararg: Optional[str]


def enclosing_lowering_rule(ctx: FileContext, node: cst.CSTNode) -> Optional[LoweringRule]:
    """The innermost enclosing function with a lowering-context parameter.

    The first parameter counts when its annotation names ``LoweringRuleContext``, when it
    has a name public lowering rules use for the context (``ctx``, ``c``...), or when the
    function reads ``<param>.avals_in`` / ``.avals_out`` / ``.module_context``. A later
    parameter counts by annotation or by those reads: rules registered as
    ``partial(rule, "target")`` take the bound arguments first.
    """
    for ancestor in ancestors(ctx, node):
        if not isinstance(ancestor, cst.FunctionDef):
            continue
        params = _positional_params(ancestor, ctx)
        if not params:
            continue
        star = ancestor.params.star_arg
        vararg = star.name.value if isinstance(star, cst.Param) else None
        for index, param in enumerate(params):
            name = param.name.value
            annotation = param.annotation
            annotated = annotation is not None and "LoweringRuleContext" in ctx.module.code_for_node(annotation.annotation)
            # Leading parameters may be bound with functools.partial (``partial(rule,
            # "target")``): a later parameter is the context only on firm evidence.
            if annotated or (index == 0 and name in CONTEXT_NAMES) or _reads_context_attr(ancestor, name):
                return LoweringRule(ancestor, name, tuple(p.name.value for p in params[index + 1 :]), vararg)
    return None


def _positional_params(function: cst.FunctionDef, ctx: FileContext) -> list[cst.Param]:
    params = [*function.params.posonly_params, *function.params.params]
    if params and params[0].name.value in ("self", "cls") and isinstance(parent_class(ctx, function), cst.ClassDef):
        if not any(get_full_name_for_node(d.decorator) == "staticmethod" for d in function.decorators):
            params = params[1:]
    return params


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


# -- compatibility guards ------------------------------------------------------------
#
# Two questions, answered differently on purpose. Either answer used for both families
# changes an outcome: with ``compatibility_guard`` a registration in the ``else:`` of
# ``try: from . import gpu_ops / except ImportError: gpu_ops = None`` would be left alone
# (it is an optional build, not a jax fallback); with ``jax_fallback_guard`` a legacy
# ``mlir.custom_call`` after ``if hasattr(jax, "ffi"): return ...`` would be rewritten
# although it is the branch kept for releases without ``jax.ffi``.
#
# ``jax_fallback_guard`` (rules that move one jax spelling to another: imports,
# registrations, translation rules) leaves a site only where the code beside it already
# offers another jax spelling: a ``try`` counts when a handler catching the failure
# (bare ``except`` and ``Exception`` included) mentions jax, so ``except ImportError:
# pass`` or ``x = None`` does not protect a legacy import from being moved; the handler
# itself is a fallback; an ``if`` counts when its test reads a version or calls ``hasattr``.
#
# ``compatibility_guard`` (rules that rewrite code inside lowering rules) leaves a site
# whenever anything selects it by jax release: any ``try`` with an ImportError /
# ModuleNotFoundError / AttributeError handler, whatever the handler does, an ``if``
# testing a version, ``hasattr`` or ``getattr``, and code after an early
# ``if <version test>: return``.

#: Exceptions whose handler marks a ``try`` as a jax fallback (``jax_fallback_guard``).
FALLBACK_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"})
#: Exceptions whose handler makes a ``try`` a compatibility guard (``compatibility_guard``).
GUARD_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError"})
#: Text that marks an ``if`` test as a jax version or feature test (with ``_tests_jax_release``).
_VERSION_TEST = re.compile(r"version|hasattr\s*\(|getattr\s*\(", re.IGNORECASE)


def _bound_once(ctx: FileContext, name: cst.Name) -> Optional[cst.BaseExpression]:
    """:meth:`FileContext.value_bound_once`, or ``None`` for a node outside the module's scopes."""
    try:
        return ctx.value_bound_once(name)
    except Exception:  # noqa: BLE001 - a node outside the module's scopes
        return None


def _flag_binding(ctx: FileContext, test: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """What a bare name (or ``not name``) in a test was bound to, when bound once:
    ``JAX_GE_0_8_2: Final = JAX_VERSION >= Version("0.8.2")`` (quax's compatibility flags)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    return _bound_once(ctx, test) if isinstance(test, cst.Name) else None


def _version_looking(ctx: FileContext, test: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether a test reads like a version or feature test: its text, or (for a flag) the
    text of what the flag was bound to."""
    if _VERSION_TEST.search(ctx.module.code_for_node(test)):
        return True
    bound = _flag_binding(ctx, test) if depth < 3 else None
    return bound is not None and _version_looking(ctx, bound, depth + 1)


def caught_exceptions(handler: cst.ExceptHandler) -> Optional[list[str]]:
    """Dotted names of the exceptions a handler catches; ``None`` for a bare ``except``."""
    if handler.type is None:
        return None
    types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    return [get_full_name_for_node(e.value if isinstance(e, cst.Element) else e) or "" for e in types]


def jax_fallback_guard(ctx: FileContext, node: cst.CSTNode) -> Optional[str]:
    """Describe the guard that offers another jax spelling beside ``node``, or ``None``."""
    parents = ctx.parents
    current = parents.get(node)
    child = node
    while current is not None:
        if isinstance(current, cst.Try) and child is current.body:
            # Only a try whose handler offers another jax spelling chooses between
            # releases; a handler that just gives up (pass, ``x = None``) does not.
            handlers = [h for h in current.handlers if _catches_failure(h) and not _none_fallback(h)]
            if any(_mentions_jax(ctx, h.body) for h in handlers):
                return "a try/except ImportError guard"
        elif isinstance(current, cst.ExceptHandler) and _catches_failure(current):
            owner = parents.get(current)
            if isinstance(owner, cst.Try) and _mentions_jax(ctx, owner.body):
                return "an except ImportError fallback"
        elif isinstance(current, (cst.If, cst.IfExp)) and child is not current.test:
            if _version_looking(ctx, current.test) and _tests_jax_release(ctx, current.test) \
                    and not taken_on_target(ctx, current, child):
                return f"a jax version test (`{guard_text(ctx, current.test)[:60]}`)"
        child = current
        current = parents.get(current)
    return None


# -- which branch of a version test the target takes ----------------------------------
#
# ``if jax.__version_info__ < (0, 4, 35): <old spelling> else: <new spelling>``: the
# ``else`` is the code the target jax runs, not a fallback for older releases. When the
# test compares jax's version with a literal in a form read with confidence, the branch
# the target takes is ordinary code for the guards below; only the other one is guarded.

_COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
_VERSION_LITERAL = re.compile(r"\d+(\.\d+)+")
#: Calls that turn a version string into something ordered (packaging, distutils, jax's own).
_VERSION_PARSERS = ("parse", "Version", "LooseVersion", "StrictVersion", "parse_version", "_version_as_tuple")
#: Qualified names of jax's and jaxlib's version strings.
VERSION_STRINGS = frozenset({"jax.__version__", "jaxlib.__version__", "jax.version.__version__", "jaxlib.version.__version__"})
_JAX_VERSION_NAMES = VERSION_STRINGS | {"jax.__version_info__", "jax.version.__version_info__", "jax.version._version",
                                        "jax.lib.version", "jax._src.lib.version", "jaxlib.version.__version_info__"}


def string_literal(node: cst.BaseExpression) -> Optional[str]:
    """The text of a string literal with nothing computed in it: ``"jax"``, ``f"jax"`` (an
    f-string without a replacement field is a constant), ``"ja" "x"``; else ``None``."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.FormattedString):
        if not all(isinstance(part, cst.FormattedStringText) for part in node.parts):
            return None
        # The parts' text as written: evaluate it as the plain string it would be.
        return string_literal(cst.SimpleString(node.prefix.lower().replace("f", "") + node.start[len(node.prefix):]
                                               + "".join(part.value.replace("{{", "{").replace("}}", "}")
                                                         for part in node.parts) + node.end))
    if isinstance(node, cst.ConcatenatedString):
        left, right = string_literal(node.left), string_literal(node.right)
        return None if left is None or right is None else left + right
    return None


def version_string(node: cst.BaseExpression) -> Optional[str]:
    """``"0.4.16"`` for a string literal of dotted numbers, else ``None``."""
    text = string_literal(node)
    return text if text is not None and _VERSION_LITERAL.fullmatch(text) else None


def _version_parser(name: str) -> bool:
    """A call that turns a version string into something ordered: packaging's, distutils',
    jax's own, or a project's helper named for it (mpi4jax's ``versiontuple("0.3.15")``)."""
    lowered = name.lower()
    return name in _VERSION_PARSERS or "version" in lowered and ("tuple" in lowered or "parse" in lowered)


def _version_literal(node: cst.BaseExpression) -> Optional[tuple[int, ...]]:
    """``(0, 4, 35)``, ``"0.4.35"`` or ``parse("0.4.35")`` as a tuple; ``None`` otherwise."""
    if isinstance(node, cst.Tuple) and node.elements and all(isinstance(e.value, cst.Integer) for e in node.elements):
        return tuple(int(e.value.value) for e in node.elements)
    text = version_string(node)
    if text is not None:
        return tuple(int(p) for p in text.split("."))
    if isinstance(node, cst.Call) and len(node.args) == 1 and _version_parser((get_full_name_for_node(node.func) or "").rsplit(".", 1)[-1]):
        return _version_literal(node.args[0].value) if version_string(node.args[0].value) is not None else None
    return None


def _reads_jax_version(ctx: FileContext, node: cst.BaseExpression, depth: int = 0) -> bool:
    """``node`` is jax's whole version (never a slice of it shorter than three parts)."""
    found = False
    truncated = False

    class _Reads(cst.CSTVisitor):
        def visit_Attribute(self, attr: cst.Attribute) -> bool:
            nonlocal found
            found = found or ctx.qualified_name(attr) in _JAX_VERSION_NAMES
            return True

        def visit_Subscript(self, sub: cst.Subscript) -> bool:
            nonlocal truncated
            for element in sub.slice:
                part = element.slice
                upper = part.upper if isinstance(part, cst.Slice) else part.value
                if not (isinstance(part, cst.Slice) and (upper is None or isinstance(upper, cst.Integer) and int(upper.value) >= 3)):
                    truncated = True
            return True

        def visit_Call(self, call: cst.Call) -> bool:
            nonlocal found
            names = ((get_full_name_for_node(call.func) or "").rsplit(".", 1)[-1], ctx.qualified_name(call.func))
            if ("version" in names or "importlib.metadata.version" in names) and call.args and \
                    string_literal(call.args[0].value) in ("jax", "jaxlib"):
                found = True  # importlib.metadata.version("jax")
            return True

    if isinstance(node, cst.Name) and ctx.qualified_name(node) in _JAX_VERSION_NAMES:
        return True  # ``from jax._src.lib import version as jaxlib_version`` (jax-triton)
    if isinstance(node, cst.Name) and depth == 0:
        bound = _bound_once(ctx, node)
        return bound is not None and _reads_jax_version(ctx, bound, depth + 1)
    walk.read(node, _Reads())
    return found and not truncated


_OPERATOR_TEXT = {cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">", cst.GreaterThanEqual: ">="}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _read_version_test(ctx: FileContext, test: cst.BaseExpression, depth: int = 0) -> Optional[tuple[str, tuple[int, ...]]]:
    """``(operator, version)`` of ``jax's version <operator> version``, read with confidence,
    also through a flag bound once to such a test (``if JAX_GE_0_8_2:``)."""
    if isinstance(test, cst.Name) and depth < 3:
        bound = _flag_binding(ctx, test)
        return _read_version_test(ctx, bound, depth + 1) if bound is not None else None
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    operator = _OPERATOR_TEXT.get(type(test.comparisons[0].operator))
    left, right = test.left, test.comparisons[0].comparator
    if operator is None:
        return None
    literal = _version_literal(right)
    if literal is not None and _reads_jax_version(ctx, left):
        return operator, literal
    literal = _version_literal(left)
    if literal is not None and _reads_jax_version(ctx, right):
        return _FLIPPED[operator], literal
    return None


def guard_text(ctx: FileContext, test: cst.BaseExpression) -> str:
    """How a guard's test is quoted in a message: ``jax < 0.8`` for a version test read with
    confidence, whatever its spelling (version-string-compare rewrites the text, and the
    next run must word the finding the same), else the test as written."""
    read = _read_version_test(ctx, test)
    if read is not None:
        return f"jax {read[0]} {'.'.join(map(str, read[1]))}"
    return " ".join(ctx.module.code_for_node(test).split())


def version_test_on_target(ctx: FileContext, test: cst.BaseExpression) -> Optional[bool]:
    """The value of a jax version test on the target release, when read with confidence."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = version_test_on_target(ctx, test.expression)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        # ``jaxlib < (0, 3, 22) and aliases``: one side read with confidence may settle it.
        sides = (version_test_on_target(ctx, test.left), version_test_on_target(ctx, test.right))
        decisive = isinstance(test.operator, cst.Or)
        if decisive in sides:
            return decisive
        return None
    feature = _feature_test_on_installed(ctx, test)
    if feature is not None:
        return feature
    read = _read_version_test(ctx, test)
    target = tuple(ctx.options.target_jax or ())
    if read is None or not target:
        return None
    pad = lambda v: tuple(v) + (0,) * (3 - len(v))  # noqa: E731
    return _COMPARE[read[0]](pad(target), pad(read[1]))


def _feature_test_on_installed(ctx: FileContext, test: cst.BaseExpression) -> Optional[bool]:
    """``hasattr(mlir, "custom_call")`` read on the installed jax when it is the target:
    False when the installed jax lacks that name (TransformerEngine's wrapper tested it to
    pick between two builders, both gone by jax 0.8, so its ``else`` runs there). ``None``
    otherwise: another target, a test of something that is not jax's, or a name found.""" 
    if not (isinstance(test, cst.Call) and get_full_name_for_node(test.func) == "hasattr" and len(test.args) == 2
            and isinstance(test.args[1].value, cst.SimpleString) and ctx.qualified_name(test.func) in (None, "builtins.hasattr")):
        return None
    owner = ctx.qualified_name(test.args[0].value)
    attribute = test.args[1].value.evaluated_value
    if not is_jax(owner) or not isinstance(attribute, str) or first_missing(owner) is not None \
            or tuple(ctx.options.target_jax or ()) != installed_version():
        return None
    # Only an absence is read with confidence: the index takes a compiled module's names
    # as present (``ir.RankedTensorType.isinstance`` is gone from jaxlib 0.9's bindings).
    return False if first_missing(f"{owner}.{attribute}") is not None else None


def taken_on_target(ctx: FileContext, branching: cst.CSTNode, child: cst.CSTNode) -> Optional[bool]:
    """Whether the target jax runs ``child``, a branch of the ``if`` / conditional expression
    ``branching`` whose test is a jax version test; ``None`` when the test is not read."""
    value = version_test_on_target(ctx, branching.test)
    if value is None:
        return None
    return value if child is branching.body else not value


def _none_fallback(handler: cst.ExceptHandler) -> bool:
    """``except ImportError: hlo = None``: names the import would bind, set to None, which
    offers no other spelling even though the names are jax's."""
    body = handler.body.body if isinstance(handler.body, cst.IndentedBlock) else []
    if not body or not all(isinstance(stmt, cst.SimpleStatementLine) for stmt in body):
        return False
    return all(isinstance(small, cst.Assign) and isinstance(small.value, cst.Name) and small.value.value == "None"
               for stmt in body for small in stmt.body)


def _catches_failure(handler: cst.ExceptHandler) -> bool:
    names = caught_exceptions(handler)
    return names is None or any(name.rsplit(".", 1)[-1] in FALLBACK_EXCEPTIONS for name in names)


def _mentions_jax(ctx: FileContext, node: cst.CSTNode) -> bool:
    """Whether ``node`` imports jax/jaxlib or uses a name bound to them.

    Not a substring test: ``jax_finufft_gpu = None`` after a failed import of an optional
    extension module is no jax spelling.
    """
    jax_locals = {b.local for b in ctx.names.imports if is_jax(b.qualified)}
    found = False

    class _Refs(cst.CSTVisitor):
        def visit_Import(self, imp: cst.Import) -> bool:
            nonlocal found
            found = found or any(is_jax(get_full_name_for_node(a.name) or "") for a in imp.names)
            return False

        def visit_ImportFrom(self, imp: cst.ImportFrom) -> bool:
            nonlocal found
            found = found or (not imp.relative and is_jax(get_full_name_for_node(imp.module) or ""))
            return False

        def visit_Name(self, name: cst.Name) -> None:
            nonlocal found
            found = found or name.value in jax_locals or name.value in ("jax", "jaxlib")

    walk.read(node, _Refs())
    return found


_JAX_STRING = re.compile(r"""['"]jax(lib)?['"]""")


def _tests_jax_release(ctx: FileContext, test: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether a version-looking ``if`` test is about jax: it reads jax/jaxlib (``jax.__version__``,
    ``hasattr(jax.ffi, ...)``, ``version("jax")``) or a name bound to such a value, through a
    few names (``JAX_GE_0_8_2 = JAX_VERSION >= Version("0.8.2")``, ``JAX_VERSION =
    Version(version("jax"))``). ``if version >= 4`` on a protobuf field's version is not."""
    code = ctx.module.code_for_node(test)
    if _mentions_jax(ctx, test) or _JAX_STRING.search(code):
        return True
    if depth >= 3:
        return False
    names: list[cst.Name] = []

    class _Names(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            names.append(name)

    walk.read(test, _Names())
    for name in names:
        bound = _bound_once(ctx, name)
        if bound is not None and _tests_jax_release(ctx, bound, depth + 1):
            return True
    return False


def is_jax(qualified: Optional[str]) -> bool:
    """Whether a dotted name is jax's or jaxlib's."""
    return bool(qualified) and qualified.split(".", 1)[0] in ("jax", "jaxlib")


def _enclosing_guards(ctx: FileContext, node: cst.CSTNode, early_exits: bool):
    """``(description, outcome)`` of each guard that selects ``node`` by jax release,
    innermost first: ``False`` where the target skips it (a test read with confidence, a
    ``try`` that catches its failure, an early exit), ``None`` where the test's outcome on
    the target is not read. A test the target passes through is ordinary code."""
    child = node
    for ancestor in ancestors(ctx, node):
        if early_exits and isinstance(ancestor, (cst.IndentedBlock, cst.Module)):
            early = _early_exit_guard(ctx, ancestor, child)
            if early is not None:
                yield early, False
        if isinstance(ancestor, (cst.If, cst.IfExp)) and child is not ancestor.test:
            if _version_looking(ctx, ancestor.test) and _tests_jax_release(ctx, ancestor.test):
                taken = taken_on_target(ctx, ancestor, child)
                if not taken:
                    yield f"`if {guard_text(ctx, ancestor.test)}`", taken
        elif isinstance(ancestor, cst.BooleanOperation) and child is ancestor.right:
            # ``hasattr(jax, "pxla") and isinstance(x, jax.pxla.ShardedDeviceArray)``: the
            # right side runs only when the test on the left lets it.
            test = ancestor.left
            if _version_looking(ctx, test) and _tests_jax_release(ctx, test):
                value = version_test_on_target(ctx, test)
                conjunction = isinstance(ancestor.operator, cst.And)
                if value is None or value is not conjunction:
                    yield f"`{guard_text(ctx, test)} {'and' if conjunction else 'or'} ...`", \
                        None if value is None else False
        elif isinstance(ancestor, cst.Try) and child is not ancestor.finalbody:
            caught = _guard_exception(ancestor)
            # A handler (or ``else``) chooses between jax releases only when what the try
            # runs first touches jax: ``try: import my_ext / except ImportError: from
            # jax.config import config`` runs its handler on any jax that lacks my_ext.
            if caught and (child is ancestor.body or _mentions_jax(ctx, ancestor.body)):
                yield f"`try: ... except {caught}`", False
        child = ancestor


def compatibility_guard(ctx: FileContext, node: cst.CSTNode, early_exits: bool = True) -> Optional[str]:
    """A short description of the guard that selects ``node`` by jax release, if any;
    without ``early_exits``, only the guards that enclose it (``if``, ``try``, ``and``)."""
    return next((text for text, _ in _enclosing_guards(ctx, node, early_exits)), None)


def undecided_guard(ctx: FileContext, node: cst.CSTNode) -> Optional[str]:
    """The version or feature test around ``node`` whose outcome on the target is not read
    (``if hasattr(jax, "ffi"):`` with ``jax.ffi`` there: the index takes a compiled module's
    names as present, so presence is no proof), when nothing else keeps ``node`` from running
    there: no enclosing ``try`` catches its failure and no test read with confidence skips
    it. Such a site may run on the target, so leaving it unreported would hide a failure."""
    found = None
    for text, outcome in _enclosing_guards(ctx, node, early_exits=False):
        if outcome is False:
            return None
        found = found or text
    return found


def serves_older_jax(ctx: FileContext, node: cst.CSTNode) -> bool:
    """Whether a compatibility guard keeps ``node`` for releases that are not the target,
    so that it does not run (or its failure is caught) on the target: not the body of a
    ``try`` whose every handler raises again (``except ImportError: raise ImportError(...)``
    only rewords the failure)."""
    if compatibility_guard(ctx, node) is None:
        return False
    child = node
    for ancestor in ancestors(ctx, node):
        if isinstance(ancestor, cst.Try) and child is ancestor.body and _guard_exception(ancestor):
            return not all(_ends_in_raise(h.body) for h in ancestor.handlers)
        if isinstance(ancestor, (cst.If, cst.IfExp)) and child is not getattr(ancestor, "test", None):
            return True
        child = ancestor
    return True


def _ends_in_raise(block: cst.BaseSuite) -> bool:
    body = block.body if isinstance(block, cst.IndentedBlock) else [block]
    last = body[-1] if body else None
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise) \
        or isinstance(last, cst.SimpleStatementSuite) and isinstance(last.body[-1], cst.Raise)


def _early_exit_guard(ctx: FileContext, block: cst.CSTNode, child: cst.CSTNode) -> Optional[str]:
    """``if <version test>: return ...`` earlier in the block: what follows serves the
    releases that fail the test."""
    for stmt in block.body:
        if stmt is child:
            return None
        if isinstance(stmt, cst.If) and _version_looking(ctx, stmt.test) and _tests_jax_release(ctx, stmt.test) \
                and version_test_on_target(ctx, stmt.test) is not False:
            body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else []
            last = body[-1] if body else None
            if isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], (cst.Return, cst.Raise)):
                return f"`if {guard_text(ctx, stmt.test)}: return ...` earlier in the block"
    return None


def _guard_exception(stmt: cst.Try) -> Optional[str]:
    for handler in stmt.handlers:
        for dotted in caught_exceptions(handler) or ():
            if dotted.rsplit(".", 1)[-1] in GUARD_EXCEPTIONS:
                return dotted
    return None


# -- message text --------------------------------------------------------------------


def version_text(version: Sequence[int]) -> str:
    return ".".join(str(v) for v in version)


#: A ``# TODO(ccmigrate): ...`` line ``--annotate`` wrote: never part of a message's code.
_ANNOTATION = re.compile(r"#\s*TODO\(ccmigrate\)[^\n]*")


def one_line(code: str) -> str:
    """Code on one line for a message, without the annotations an earlier run wrote
    (they would change the message, and so the annotation, on every run)."""
    return " ".join(_ANNOTATION.sub("", code).split())


def short(code: str, limit: int = 70) -> str:
    code = one_line(code)
    return code if len(code) <= limit else code[: limit - 3] + "..."


# -- other modules of the project ------------------------------------------------------
def project_module_file(path: str, package: Optional[str], module: str, nearby: bool = False) -> Optional[str]:
    """The source file of project module ``module`` imported by the file at ``path``:
    under the root its package implies; with ``nearby``, also under up to three parent
    directories (or their ``src/``), as for a test script next to a ``src/`` layout."""
    return _project_module_file(os.path.dirname(os.path.abspath(path)), package, module, nearby)


@lru_cache(maxsize=1024)
def _project_module_file(directory: str, package: Optional[str], module: str, nearby: bool) -> Optional[str]:
    root = directory
    for _ in range(len(package.split(".")) if package else 0):
        root = os.path.dirname(root)
    roots = [root]
    if nearby:
        current = directory
        for _ in range(3):
            roots += [current, os.path.join(current, "src")]
            current = os.path.dirname(current)
    for base_root in dict.fromkeys(roots):
        base = os.path.join(base_root, *module.split("."))
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None


@lru_cache(maxsize=64)
def project_module_ast(path: str, mentions: bytes = b"") -> Optional[ast.Module]:
    """Python's tree of another project module (read once per run), or None when it
    cannot be read or parsed, or lacks ``mentions``."""
    try:
        with open(path, "rb") as fh:
            source = fh.read()
        if mentions not in source:
            return None
        return ast.parse(source)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


#: Custom-call builders, spelt without underscores in lower case (``hlo_custom_call``,
#: ``xops.CustomCallWithLayout``); ``_add_custom_call_scalars`` is none of them.
_BUILDER_CALLEES = frozenset({"customcall", "customcallwithlayout", "hlocustomcall", "mhlocustomcall"})

PURE_BUILTINS = frozenset({"len", "range", "tuple", "list", "reversed"})


def mutated_in(function: cst.FunctionDef, name: str) -> bool:
    """Whether ``function`` may change the list ``name`` holds in place: a method called on
    it (``ins.append(c)``), an item or slice stored or deleted (``ins[0] = c``), or the list
    handed on where that cannot be seen: another name bound to it (``extra = ins``), or an
    argument of a call other than a custom-call builder's and a few pure builtins
    (``_add_constant(ins, n)``), or an element of a display (``extra, k = ins, n``)."""
    found = []

    class _Mutations(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if isinstance(node.value, cst.Name) and node.value.value == name:
                found.append(node)

        def visit_Element(self, node: cst.Element) -> None:
            # ``extra, scale = ins, n`` or ``for t in (ins,)``: another name for the list.
            if isinstance(node.value, cst.Name) and node.value.value == name:
                found.append(node)

        def visit_Arg(self, node: cst.Arg) -> None:
            if node.star or not (isinstance(node.value, cst.Name) and node.value.value == name):
                return
            calls.append(node)

        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == name:
                found.append(node)

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if isinstance(node.target, cst.Subscript) and isinstance(node.target.value, cst.Name) and node.target.value.value == name:
                found.append(node)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, cst.Subscript) and isinstance(node.target.value, cst.Name) and node.target.value.value == name:
                found.append(node)

        def visit_Del(self, node: cst.Del) -> None:
            if isinstance(node.target, cst.Subscript) and isinstance(node.target.value, cst.Name) and node.target.value.value == name:
                found.append(node)

    calls: list[cst.Arg] = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> Optional[bool]:
            callee = get_full_name_for_node(node.func) or ""
            if callee.rsplit(".", 1)[-1].replace("_", "").lower() in _BUILDER_CALLEES:
                # The builder's own arguments (``operand_layouts=default_layouts(ins)``) are
                # read when the call is made, after every change the list could have had.
                return False
            if callee in PURE_BUILTINS:
                return None
            if any(arg in calls for arg in node.args):
                found.append(node)
            return None

    walk.read(function.body, _Mutations())
    if calls and not found:
        walk.read(function.body, _Calls())
    return bool(found)


class OwnScope(cst.CSTVisitor):
    """A visitor of one function's own body: nested functions, classes and lambdas, which
    have scopes of their own, are not entered (``function`` itself is, when given)."""

    def __init__(self, function: Optional[cst.FunctionDef] = None) -> None:
        super().__init__()
        self.function = function

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.function

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


class CallsOf(cst.CSTVisitor):
    """Calls of one plain name (``helper(...)``)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.found: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == self.name:
            self.found.append(node)


def calls_in(node: cst.CSTNode) -> list[cst.Call]:
    """Every call inside ``node`` (``node`` itself too), in source order."""
    found: list[cst.Call] = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            found.append(n)

    walk.read(node, _Calls())
    return found
