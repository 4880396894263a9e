"""``core-primitive``: ``jax.core.Primitive`` -> ``jax.extend.core.Primitive``.

Legacy form
    ``from jax import core; core.Primitive("name")``, ``jax.core.Primitive(...)`` and
    ``from jax.core import Primitive``: how every custom-call extension declared its
    primitive. Deprecated in jax 0.4.36, **removed in 0.6.0**: ``AttributeError: module
    'jax.core' has no attribute 'Primitive'`` (or ``ImportError: cannot import name
    'Primitive' from 'jax.core'``), so the module fails at import before any lowering.

Replacement
    ``jax.extend.core.Primitive`` (the same class; ``jax.extend.core`` exposes it from
    jax 0.4.36). Sites are left alone for a ``--target-jax`` below 0.6.0, where the legacy
    name still works. ``from jax.core import Primitive`` becomes ``from jax.extend.core
    import Primitive``; an attribute read becomes ``Primitive`` through one added
    ``from jax.extend.core import Primitive`` (or an existing binding of it). A ``jax.core``
    import left unused is removed.

    A site inside a compatibility guard (``try: from jax.extend.core import Primitive /
    except ImportError: from jax.core import Primitive``) already works and is left alone;
    a guarded site without the modern spelling beside it is reported as manual.

What the kernel receives afterwards
    Unchanged: the primitive, its lowering rules and the custom calls they emit are the
    same objects.

Before::

    from jax import core
    kepler_p = core.Primitive("kepler")

After::

    from jax.extend.core import Primitive
    kepler_p = Primitive("kepler")
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods.rule import Rule, Safety
from codemods.rules._shared import ancestors, compatibility_guard, imported_aliases, member_spelling

LEGACY = "jax.core.Primitive"
MODERN = "jax.extend.core.Primitive"
REMOVED_IN = (0, 6, 0)


class CorePrimitive(Rule):
    __doc__ = __doc__
    name = "core-primitive"
    summary = "Rewrite jax.core.Primitive (removed in jax 0.6.0) to jax.extend.core.Primitive."
    # `core.Primitive`, `jax.core.Primitive`, `from jax.core import Primitive`, `import jax.core as jc`.
    # Every site spells the class: `core.Primitive`, `c.Primitive` through `from jax import
    # abstract_arrays, core as c`, `from jax.core import Primitive`.
    triggers = (b"Primitive",)
    statement_scoped = True

    def active(self) -> bool:
        return self.ctx.options.target_jax >= REMOVED_IN

    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        if node.attr.value != "Primitive" or not self.active():
            return None
        if self.ctx.qualified_name(node) != LEGACY:
            return None
        if self.guarded(node):
            return False
        head = (get_full_name_for_node(node.value) or "").split(".")[0]

        def edit(_updated: cst.CSTNode) -> cst.CSTNode:
            spelt = self.spelling()
            for binding in self.ctx.names.imports:
                if binding.local == head and binding.qualified == "jax.core" and binding.from_module == "jax":
                    self.ctx.remove_import_if_unused("jax", "core", None if head == "core" else head)
            return cst.parse_expression(spelt)

        self.report(
            node,
            Safety.SAFE,
            "jax.core.Primitive was removed in jax 0.6.0; the same class is jax.extend.core.Primitive",
            edit,
            kernel_receives="unchanged (the same primitive class)",
        )
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> Optional[bool]:
        if not self.active():
            return False
        aliases = imported_aliases(node, "jax.core", "Primitive")
        if not aliases:
            return False
        if self.guarded(node):
            return False
        alias = aliases[0]
        asname = get_full_name_for_node(alias.asname.name) if alias.asname else None

        message = "jax.core.Primitive was removed in jax 0.6.0; import it from jax.extend.core"
        self.report(node, Safety.SAFE, message, self._import_edit(asname, len(node.names) == 1), kernel_receives="unchanged (the same primitive class)")
        return False

    def _import_edit(self, asname: Optional[str], whole: bool):
        def edit(updated: cst.CSTNode):
            assert isinstance(updated, cst.ImportFrom) and not isinstance(updated.names, cst.ImportStar)
            if whole:
                alias = updated.names[0]
                return updated.with_changes(module=cst.parse_expression("jax.extend.core"), names=[alias.with_changes(comma=cst.MaybeSentinel.DEFAULT)])
            kept = [a for a in updated.names if get_full_name_for_node(a.name) != "Primitive"]
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            self.ctx.add_import("jax.extend.core", "Primitive", asname)
            return updated.with_changes(names=kept)

        return edit

    def guarded(self, node: cst.CSTNode) -> bool:
        """Leave guarded sites; report those without the modern spelling beside them."""
        guard = compatibility_guard(self.ctx, node)
        if guard is None:
            return False
        for ancestor in ancestors(self.ctx, node):
            if isinstance(ancestor, (cst.Try, cst.If)) and "jax.extend.core" in self.ctx.module.code_for_node(ancestor):
                return True
        self.report(
            node,
            Safety.MANUAL,
            f"jax.core.Primitive (removed in jax 0.6.0) inside the compatibility guard {guard}; left as is. "
            "Use jax.extend.core.Primitive on jax >= 0.4.36",
        )
        return True

    def spelling(self) -> str:
        return member_spelling(self.ctx, "jax.extend.core", "Primitive", moved_from=LEGACY)
