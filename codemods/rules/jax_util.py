"""``jax-util``: the small helpers of ``jax.util`` (removed in jax 0.7.0) written into the module.

Legacy form
    ``from jax.util import safe_map, safe_zip, unzip2, split_list`` (often followed by
    ``map, unsafe_map = safe_map, map``), ``jax.util.safe_zip(...)``, ``from jax import
    util``. Code that walks jaxprs or writes custom primitives borrowed these helpers
    from jax. jax deprecated the module's last members in **0.6.0** and **removed them in
    0.7.0**: ``ModuleNotFoundError: No module named 'jax.util'`` at import, before any
    lowering. Much older code imports ``partial`` and ``prod`` from it, which the module
    re-exported (``functools.partial``) or defined until the helpers moved to
    ``jax._src.util`` (2021).

Replacement (every jax release)
    jax named none. The helpers are a few lines each, so the module gets its own
    definition, under the name it imported (``safe_map as map`` defines ``map``), after
    its imports:

    ==================  ===================================================================
    ``safe_map``        ``f`` over sequences of one length, as a list (ValueError otherwise)
    ``safe_zip``        ``zip`` over sequences of one length, as a list of tuples
    ``unzip2/unzip3``   a sequence of pairs/triples as two/three tuples
    ``split_list``      a sequence cut into lists of the given lengths, and the rest
    ``split_dict``      a dict's values for the given names (nothing else may be left)
    ``subvals``         a tuple with the given ``(index, value)`` pairs replaced
    ``split_merge``     items split by a predicate, and the function merging them back
    ``concatenate``     a sequence of sequences flattened into one list
    ``partition_list``  items split by a list of flags, and ``merge_lists`` inverting it
    ``curry``           ``partial(partial, f)`` named as ``f``: ``curry(f)(x)(y)`` is ``f(x, y)``
    ``wraps``           ``functools.wraps`` with ``namestr``/``docstr`` formatted from the
                        wrapped function's name and docstring (``{fun}``, ``{doc}``)
    ==================  ===================================================================

    ``partial`` is ``functools.partial`` (the very object jax re-exported) and ``prod``
    ``math.prod`` (jax's loop multiplied from 1 as math.prod does). The definitions read
    no builtin a module commonly rebinds (``map``, ``zip``), so ``map = safe_map`` after
    them stays what it was. Their behaviour is checked against jax's private copies in
    ``tests/test_jax_util.py``, error types included.

    The import goes when nothing else is left in it; ``import jax.util`` or ``from jax
    import util`` goes once no use of it is left, or at once when nothing read it. A module-level import's helpers are
    defined even where the module reads none of them: another module may import them
    from it (``from .compat import safe_map``), as it imported the names before. Other members (``cache``, ``memoize``,
    ``toposort``, ``HashableFunction``...) are reported manual with
    what to use instead; a helper whose name the module already binds otherwise, reached
    as ``jax.util.safe_map``, is reported too. Sites in a compatibility guard (``try:
    from jax.util import safe_map / except ImportError: ...``) are left alone. For a
    ``--target-jax`` below 0.6.0 the helpers are left where they are (``partial`` and
    ``prod``, gone long before, move on every target).

What the kernel receives afterwards
    Unchanged: only Python-side bookkeeping moves.

Safety
    Safe: the definitions return what jax's did for every input jax accepted (a length
    mismatch is still a ValueError).

Before::

    from jax.util import safe_map, safe_zip, partial
    map = safe_map

After::

    from functools import partial


    def safe_map(f, *args):
        ...


    def safe_zip(*args):
        ...
    map = safe_map
"""

from __future__ import annotations

import re
import textwrap
from typing import Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods.rule import Rule, Safety
from codemods.rules._shared import compatibility_guard, drop_binding_if_unused, import_without, member_spelling

MODULE = "jax.util"
#: jax.util's members deprecated in 0.6.0 and gone in 0.7.0.
DEPRECATED_IN = (0, 6, 0)
#: The module itself: ``import jax.util`` raises ModuleNotFoundError from here on.
REMOVED_IN = (0, 7, 0)
#: A dotted use of the module (``jax.util.safe_map``), in the text.
_DOTTED_USE = re.compile(rb"\bjax\.util\.")

#: Members that are another library's object, or the same function under its name there.
MOVES = {
    "partial": ("functools", "partial", "jax.util re-exported functools.partial itself"),
    "prod": ("math", "prod", "jax.util.prod multiplied the items from 1, as math.prod does"),
}

#: ``def NAME`` source of each helper, written for this rule; ``NAME`` becomes the local name.
HELPERS = {
    "safe_map": '''
def NAME(f, *args):
    """f applied across sequences of one length, as a list (jax.util.safe_map, removed in jax 0.7.0)."""
    if not args:
        raise TypeError("safe_map requires at least 2 arguments")
    args = [list(arg) for arg in args]
    n = len(args[0])
    if any(len(arg) != n for arg in args):
        raise ValueError(f"safe_map() arguments of lengths {tuple(len(arg) for arg in args)}")
    return [f(*[arg[i] for arg in args]) for i in range(n)]
''',
    "safe_zip": '''
def NAME(*args):
    """zip over sequences of one length, as a list of tuples (jax.util.safe_zip, removed in jax 0.7.0)."""
    if not args:
        raise TypeError("safe_zip requires at least 1 argument")
    args = [list(arg) for arg in args]
    n = len(args[0])
    if any(len(arg) != n for arg in args):
        raise ValueError(f"safe_zip() arguments of lengths {tuple(len(arg) for arg in args)}")
    return [tuple(arg[i] for arg in args) for i in range(n)]
''',
    "unzip2": '''
def NAME(pairs):
    """A sequence of pairs as two tuples (jax.util.unzip2, removed in jax 0.7.0)."""
    firsts, seconds = [], []
    for first, second in pairs:
        firsts.append(first)
        seconds.append(second)
    return tuple(firsts), tuple(seconds)
''',
    "unzip3": '''
def NAME(triples):
    """A sequence of triples as three tuples (jax.util.unzip3, removed with jax.util)."""
    firsts, seconds, thirds = [], [], []
    for first, second, third in triples:
        firsts.append(first)
        seconds.append(second)
        thirds.append(third)
    return tuple(firsts), tuple(seconds), tuple(thirds)
''',
    "split_list": '''
def NAME(items, sizes):
    """items cut into lists of the given sizes, then the rest (jax.util.split_list, removed in jax 0.7.0)."""
    items = list(items)
    parts = []
    for size in sizes:
        parts.append(items[:size])
        items = items[size:]
    parts.append(items)
    return parts
''',
    "split_dict": '''
def NAME(mapping, names):
    """The values of mapping for names, which must be all its keys (jax.util.split_dict, removed in jax 0.7.0)."""
    rest = dict(mapping)
    values = [rest.pop(name) for name in names]
    assert not rest
    return values
''',
    "subvals": '''
def NAME(items, replace):
    """items as a tuple with each (index, value) of replace put in (jax.util.subvals, removed in jax 0.7.0)."""
    items = list(items)
    for index, value in replace:
        items[index] = value
    return tuple(items)
''',
    "split_merge": '''
def NAME(predicate, items):
    """The items predicate holds for, the others, and a function merging two such lists back in the original
    order (jax.util.split_merge, removed in jax 0.7.0)."""
    sides = [predicate(item) for item in items]
    kept = [items[i] for i, side in enumerate(sides) if side]
    others = [items[i] for i, side in enumerate(sides) if not side]

    def merge(new_kept, new_others):
        new_kept, new_others = list(new_kept), list(new_others)
        merged = [new_kept.pop(0) if side else new_others.pop(0) for side in sides]
        assert not new_kept and not new_others
        return merged

    return kept, others, merge
''',
    "concatenate": '''
def NAME(sequences):
    """A sequence of sequences flattened into one list (jax.util.concatenate, removed with jax.util)."""
    return [item for sequence in sequences for item in sequence]
''',
    "partition_list": '''
def NAME(flags, items):
    """items split by flags: those with a false flag, then those with a true one (jax.util.partition_list,
    removed with jax.util)."""
    assert len(flags) == len(items)
    parts = [], []
    for i, item in enumerate(items):
        parts[flags[i]].append(item)
    return parts
''',
    "merge_lists": '''
def NAME(flags, falses, trues):
    """The inverse of partition_list: items taken from falses or trues by flags (jax.util.merge_lists,
    removed with jax.util)."""
    assert sum(flags) == len(trues) and len(flags) - sum(flags) == len(falses)
    falses, trues = iter(falses), iter(trues)
    return [next(trues) if flag else next(falses) for flag in flags]
''',
    "wraps": '''
def NAME(wrapped, namestr=None, docstr=None, **kwargs):
    """functools.wraps, name and docstring formatted from the wrapped one's (jax.util.wraps, removed in jax 0.7.0)."""
    from functools import partial as partial_type

    def wrapper(fun):
        try:
            name = getattr(wrapped, "__name__", None)
            inner = wrapped
            while name is None and isinstance(inner, partial_type):
                inner = inner.func
                name = getattr(inner, "__name__", None)
            if name is None:
                name = "<unnamed function>"
            doc = getattr(wrapped, "__doc__", "") or ""
            fun.__dict__.update(getattr(wrapped, "__dict__", {}))
            fun.__annotations__ = getattr(wrapped, "__annotations__", {})
            fun.__name__ = name if namestr is None else namestr.format(fun=name)
            fun.__module__ = getattr(wrapped, "__module__", "<unknown module>")
            fun.__doc__ = doc if docstr is None else docstr.format(fun=name, doc=doc, **kwargs)
            fun.__qualname__ = getattr(wrapped, "__qualname__", fun.__name__)
            fun.__wrapped__ = wrapped
        except Exception:  # jax's never failed the decoration
            pass
        return fun
    return wrapper
''',
}

# jax's ``curry(f)`` was ``wraps(f)(partial(partial, f))``: the same, with ``wraps`` nested.
HELPERS["curry"] = (
    "\ndef NAME(f):\n"
    '    """f taking its arguments over two calls, named as f (jax.util.curry, removed in jax 0.7.0)."""\n'
    "    from functools import partial\n"
    + textwrap.indent(HELPERS["wraps"].replace("def NAME(", "def wraps(", 1), "    ")
    + "\n    return wraps(f)(partial(partial, f))\n"
)

#: What to use instead of the members without a faithful stand-in.
GUIDANCE = {
    "cache": "use functools.lru_cache (jax's also keyed on its trace state)",
    "memoize": "use functools.lru_cache(maxsize=None)",
    "toposort": "use graphlib.TopologicalSorter, or copy the function from the jax release you used",
    "HashableFunction": "use a functools.partial, or a small class with __eq__/__hash__ on the closure's values",
    "as_hashable_function": "use a functools.partial, or a small class with __eq__/__hash__ on the closure's values",
    "wrap_name": "write f'{transform_name}({name})'",
    "split_list_checked": "use split_list and assert that the sizes add up",
}
_FALLBACK_GUIDANCE = "copy the helper from the jax release you used into the package"


def _definition(name: str, local: str) -> str:
    return re.sub(r"\bdef NAME\(", f"def {local}(", HELPERS[name])


class JaxUtil(Rule):
    __doc__ = __doc__
    name = "jax-util"
    summary = "Define jax.util's helpers (removed in jax 0.7.0) in the module; partial and prod from the stdlib."
    # `from jax.util import ...`, `jax.util.x`, `from jax import util` / `lax, util`.
    triggers = (b"jax.util", b" util")
    statement_scoped = True

    def _active_for(self, member: str) -> bool:
        return member in MOVES or self.ctx.options.target_jax >= DEPRECATED_IN

    # -- import jax.util / from jax import util, read by nothing --------------------
    def visit_Import(self, node: cst.Import) -> bool:
        """``import jax.util`` (or ``... as u``) that nothing reads: the import alone fails
        once jax removed the module; it goes. (One read goes with its last use instead.)"""
        if self.ctx.options.target_jax < REMOVED_IN or compatibility_guard(self.ctx, node) is not None:
            return False
        for alias in node.names:
            if get_full_name_for_node(alias.name) != MODULE:
                continue
            if alias.asname is None:
                if _DOTTED_USE.search(self.ctx.source) is None:
                    self._unused_module_import(node, "jax")
            elif self._unread(node, local := get_full_name_for_node(alias.asname.name) or ""):
                self._unused_module_import(node, local)
        return False

    def _unread(self, node: cst.CSTNode, local: str) -> bool:
        """Nothing reads the name ``node`` binds (nor does a string name it: ``__all__``)."""
        scope = self.ctx.scopes.get(node)
        if scope is None or not local:
            return False
        if self.ctx.named_in_string(local):
            return False
        bindings = [a for a in scope.assignments[local] if a.node is node]
        return bool(bindings) and not any(b.references for b in bindings)

    def _unused_module_import(self, node: cst.CSTNode, head: str) -> None:
        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            self._drop_util_import(head)
            return updated

        self.report(node, Safety.SAFE, f"unused import of {MODULE} (removed in jax 0.7.0) removed: it failed at import "
                    "time and nothing reads it", edit)

    # -- from jax.util import a, b as c --------------------------------------------
    def visit_ImportFrom(self, node: cst.ImportFrom) -> Optional[bool]:
        if not node.relative and not isinstance(node.names, cst.ImportStar) \
                and get_full_name_for_node(node.module) == "jax" and self.ctx.options.target_jax >= REMOVED_IN \
                and compatibility_guard(self.ctx, node) is None:
            for alias in node.names:  # ``from jax import lax, util`` with util read by nothing
                local = get_full_name_for_node(alias.asname.name) if alias.asname else "util"
                if get_full_name_for_node(alias.name) == "util" and self._unread(node, local):
                    self._unused_module_import(node, local)
            return False
        if node.relative or isinstance(node.names, cst.ImportStar) or get_full_name_for_node(node.module) != MODULE:
            return False
        if compatibility_guard(self.ctx, node) is not None:
            return False
        handled: dict[str, str] = {}  # local name -> member
        for alias in node.names:
            member = get_full_name_for_node(alias.name) or ""
            local = get_full_name_for_node(alias.asname.name) if alias.asname else member
            if not self._active_for(member):
                continue
            if member in MOVES or member in HELPERS:
                handled[local] = member
            else:
                self._report_manual(alias, member)
        if not handled:
            return False
        top_level = self._top_level(node)
        if not top_level and any(m in HELPERS for m in handled.values()):
            # A helper imported inside a function becomes a module-level definition, unless
            # the module binds that name to something else.
            for local, member in list(handled.items()):
                if member in HELPERS and self._bound_elsewhere(local, node, module_only=True):
                    del handled[local]
                    self._report_manual(node, member, why=f"`{local}` names something else in this module")
            if not handled:
                return False
        self.report(node, Safety.SAFE, self._message(handled), self._import_edit(handled, exported=top_level))
        return False

    def _top_level(self, node: cst.CSTNode) -> bool:
        return not any(isinstance(a, (cst.FunctionDef, cst.ClassDef)) for a in self.ctx.ancestors_of(node))

    def _message(self, handled: dict[str, str]) -> str:
        parts = []
        moved = sorted(m for m in handled.values() if m in MOVES)
        defined = sorted(local for local, m in handled.items() if m in HELPERS)
        if moved:
            parts.append(", ".join(f"{m} is {MOVES[m][0]}.{MOVES[m][1]}" for m in moved))
        if defined:
            parts.append(f"{', '.join(defined)} defined in this module")
        return f"jax.util is gone (its last helpers removed in jax 0.7.0): {'; '.join(parts)}"

    def _import_edit(self, handled: dict[str, str], exported: bool):
        def edit(updated: cst.CSTNode):
            assert isinstance(updated, cst.ImportFrom)
            for local, member in handled.items():
                if member in MOVES:
                    module, obj, _why = MOVES[member]
                    self.ctx.add_import(module, obj, None if local == obj else local)
                else:
                    # A module-level import may be re-exported (``from .util import safe_map``
                    # elsewhere): its definition stays even where this module reads none.
                    self.ctx.add_helper(local, _definition(member, local), exported=exported)

            def drop(alias: cst.ImportAlias) -> bool:
                local = get_full_name_for_node(alias.asname.name if alias.asname else alias.name)
                return local in handled

            return import_without(updated, drop)

        return edit

    # -- jax.util.safe_map(...), util.partial -----------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        member = node.attr.value
        if self.ctx.qualified_name(node) != f"{MODULE}.{member}" or not self._active_for(member):
            return None
        if compatibility_guard(self.ctx, node) is not None:
            return False
        head = (get_full_name_for_node(node.value) or "").split(".")[0]
        if member in MOVES:
            module, obj, why = MOVES[member]
            message = f"jax.util.{member} is gone: {module}.{obj} ({why})"

            def move(_updated: cst.CSTNode) -> cst.CSTNode:
                self._drop_util_import(head)
                return cst.parse_expression(member_spelling(self.ctx, module, obj))

            self.report(node, Safety.SAFE, message, move)
            return False
        if member in HELPERS:
            if self._bound_elsewhere(member, node):
                self._report_manual(node, member, why=f"`{member}` names something else here")
                return False

            def define(_updated: cst.CSTNode) -> cst.CSTNode:
                self._drop_util_import(head)
                self.ctx.add_helper(member, _definition(member, member))
                return cst.Name(member)

            self.report(node, Safety.SAFE, f"jax.util is gone (removed in jax 0.7.0): {member} defined in this module",
                        define)
            return False
        self._report_manual(node, member)
        return False

    def _bound_elsewhere(self, name: str, node: cst.CSTNode, module_only: bool = False) -> bool:
        """Whether ``name`` is bound at module level, or (unless ``module_only``) in the
        function scope around ``node``, by something other than ``node`` itself (LibCST's
        scope analysis; the defining import of a helper is ``node``)."""
        scope = self.ctx.scopes.get(node)
        if scope is None:
            return True  # unknown: keep the site as it is
        scopes = {scope.globals} if module_only else {scope.globals, scope}
        return any(a.node is not node for s in scopes for a in s.assignments[name])

    def _drop_util_import(self, head: str) -> None:
        if head == "jax":
            # ``import jax.util`` fails once the module is gone: it goes with its last use.
            self.ctx.remove_dotted_import_if_unused(MODULE)
        else:
            drop_binding_if_unused(self.ctx, head)

    def _report_manual(self, node: cst.CSTNode, member: str, why: str = "") -> None:
        instead = ("define the helper under a name that is free here (what it did: jax-util's table)"
                   if member in HELPERS else GUIDANCE.get(member, _FALLBACK_GUIDANCE))
        reason = f" ({why})" if why else ""
        self.report(node, Safety.MANUAL, f"jax.util.{member} is gone (jax.util removed in jax 0.7.0){reason}; {instead}")
