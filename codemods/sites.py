"""Questions the API-migration rules ask about one call site.

Argument lookup by position or keyword, names bound through module-level aliases
(``xops = xla_client.ops``), and whether a site sits in a compatibility guard
(``try: ... except ImportError``, a jax version test, ``hasattr(...)``), where the code is
written to work on several jax releases and must be left as it is.
"""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods.context import FileContext

#: Exceptions whose handler marks the ``try`` as a jax-version fallback.
GUARD_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"})
#: Words whose presence in an ``if`` test marks it as a jax-version test.
VERSION_WORDS = ("__version__", "__version_info__", "version", "hasattr(")


def version_text(version: Sequence[int]) -> str:
    return ".".join(str(v) for v in version)


def positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def argument(call: cst.Call, index: int, name: str) -> Optional[cst.BaseExpression]:
    """The value passed for parameter ``name`` (positional ``index``), if any."""
    arg = keyword(call, name)
    if arg is not None:
        return arg.value
    args = positional(call)
    return args[index].value if index < len(args) else None


def has_star(call: cst.Call) -> bool:
    return any(a.star for a in call.args)


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
    if not isinstance(head_node, cst.Name):
        return None
    try:
        bound = ctx.value_bound_once(head_node)
    except Exception:  # noqa: BLE001 - a node outside the module's scopes
        bound = None
    if not isinstance(bound, (cst.Name, cst.Attribute)):
        return None
    base = qualified_through_alias(ctx, bound, depth + 1)
    if base is None:
        return None
    rest = dotted[len(head_node.value):]
    return base + rest


def guard_of(ctx: FileContext, node: cst.CSTNode) -> Optional[str]:
    """Describe the compatibility guard enclosing ``node``, or ``None``.

    A guard is a ``try`` whose handlers catch an import/attribute failure, or an ``if``
    whose test reads a version or calls ``hasattr``: code that already chooses between
    jax releases at run time.
    """
    parents = ctx.parents
    current = parents.get(node)
    child = node
    while current is not None:
        if isinstance(current, cst.Try) and child is current.body:
            # Only a try whose handler offers another jax spelling chooses between
            # releases; a handler that just gives up (pass, ``x = None``) does not.
            handlers = [h for h in current.handlers if _catches_failure(h)]
            if any(_mentions_jax(ctx, h.body) for h in handlers):
                return "a try/except ImportError guard"
        elif isinstance(current, cst.ExceptHandler) and _catches_failure(current):
            owner = parents.get(current)
            if isinstance(owner, cst.Try) and _mentions_jax(ctx, owner.body):
                return "an except ImportError fallback"
        elif isinstance(current, (cst.If, cst.IfExp)) and child is not current.test:
            test = ctx.module.code_for_node(current.test)
            if any(word in test for word in VERSION_WORDS):
                return f"a jax version test (`{' '.join(test.split())[:60]}`)"
        child = current
        current = parents.get(current)
    return None


def _catches_failure(handler: cst.ExceptHandler) -> bool:
    names = _handler_names(handler)
    return names is None or bool(names & GUARD_EXCEPTIONS)


def _mentions_jax(ctx: FileContext, node: cst.CSTNode) -> bool:
    return "jax" in ctx.module.code_for_node(node)


def _handler_names(handler: cst.ExceptHandler) -> Optional[set[str]]:
    """Names of the exceptions a handler catches; ``None`` for a bare ``except``."""
    if handler.type is None:
        return None
    types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    names = set()
    for element in types:
        value = element.value if isinstance(element, cst.Element) else element
        name = get_full_name_for_node(value) or ""
        names.add(name.rsplit(".", 1)[-1])
    return names


def enclosing_function(ctx: FileContext, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
    current = ctx.parents.get(node)
    while current is not None and not isinstance(current, cst.FunctionDef):
        current = ctx.parents.get(current)
    return current


def is_called(ctx: FileContext, node: cst.CSTNode) -> bool:
    """Whether ``node`` is the callee of a call (``node(...)``)."""
    parent = ctx.parents.get(node)
    return isinstance(parent, cst.Call) and parent.func is node


def drop_binding_if_unused(ctx: FileContext, head: str) -> None:
    """Ask for the import binding ``head`` to be removed once nothing uses it."""
    for binding in ctx.names.imports:
        if binding.local != head or not binding.top_level:
            continue
        if binding.from_module is not None:
            obj = binding.qualified[len(binding.from_module) + 1:]
            ctx.remove_import_if_unused(binding.from_module, obj, head if head != obj else None)
        elif binding.qualified != head:  # import a.b as head
            ctx.remove_import_if_unused(binding.qualified, None, head)


def head_name(node: cst.BaseExpression) -> Optional[str]:
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def heads_importing(ctx: FileContext, prefixes: tuple[str, ...]) -> set[str]:
    """Local names bound by an import of something under one of ``prefixes``.

    A cheap test from the import table alone: an attribute chain whose head is not in
    this set cannot resolve to those modules, so the (possibly costly) exact name
    resolution is skipped for it.
    """
    heads = set()
    for binding in ctx.names.imports:
        qual = binding.qualified
        if any(qual == p or qual.startswith(p + ".") or p.startswith(qual + ".") for p in prefixes):
            heads.add(binding.local)
    return heads
