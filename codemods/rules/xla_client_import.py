"""``xla-client-import``: what is left of ``jax.lib.xla_client`` / ``xla_bridge`` /
``xla_extension`` once the custom-call rules are done.

Legacy form
    ``from jax.lib import xla_bridge; xla_bridge.get_backend()``,
    ``from jax.lib.xla_bridge import get_backend``, ``jax.lib.xla_client.XlaRuntimeError``,
    ``except xla_extension.XlaRuntimeError``, and imports of those modules nothing uses.

Removed
    Most of their attributes were deprecated from jax 0.4.26 on and removed by 0.6.0; the
    modules were deleted in jax 0.9.0 (``ImportError: cannot import name 'xla_bridge'
    from 'jax.lib'``), so even an unused import stops the module from loading.

Replacement (minimum jax 0.5.0; each is the very same object on jax 0.10.2)
    ==========================================================  ===============================
    legacy                                                      replacement
    ==========================================================  ===============================
    ``xla_bridge.get_backend`` / ``backends``                   ``jax.extend.backend.*``
    ``xla_bridge.default_backend``, ``devices``,                ``jax.*``
    ``local_devices``, ``device_count``, ``local_device_count``,
    ``process_index``, ``process_count``
    ``xla_client.XlaRuntimeError`` (also ``xla_extension``)     ``jax.errors.JaxRuntimeError``
    ``xla_client.Device`` (also ``xla_extension``)              ``jax.Device``
    ==========================================================  ===============================

    An import whose name nothing uses is removed. ``register_custom_call_target``,
    ``ops`` and ``Shape`` are left to ``register-custom-call-target`` and
    ``xla-translation-rule``. Every other attribute has no public replacement and is
    reported as manual. For a target jax below 0.5.0 nothing is changed.

What the kernel receives afterwards
    Nothing changes for any kernel: these are backend and error-type lookups. ``safe``.

Before::

    from jax.lib import xla_bridge
    platform = xla_bridge.get_backend().platform

After::

    import jax.extend.backend
    platform = jax.extend.backend.get_backend().platform
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods.rule import Rule, Safety
from codemods.rules._shared import drop_binding_if_unused, head_name, heads_importing, import_without, jax_fallback_guard

MODULES = ("jax.lib.xla_bridge", "jax.lib.xla_client", "jax.lib.xla_extension")
REPLACEMENTS = {
    "jax.lib.xla_bridge.get_backend": "jax.extend.backend.get_backend",
    "jax.lib.xla_bridge.backends": "jax.extend.backend.backends",
    **{f"jax.lib.xla_bridge.{n}": f"jax.{n}" for n in (
        "default_backend", "devices", "local_devices", "device_count", "local_device_count",
        "process_index", "process_count",
    )},
    **{f"jax.lib.{m}.XlaRuntimeError": "jax.errors.JaxRuntimeError" for m in ("xla_client", "xla_extension")},
    **{f"jax.lib.{m}.Device": "jax.Device" for m in ("xla_client", "xla_extension")},
}
#: Attributes other rules migrate; reporting them here would duplicate their findings.
OTHER_RULES = frozenset({"ops", "Shape", "register_custom_call_target", "register_cpu_custom_call_target"})
MINIMUM = (0, 5, 0)


class XlaClientImport(Rule):
    __doc__ = __doc__
    name = "xla-client-import"
    summary = "Replace or drop leftover jax.lib.xla_client / xla_bridge / xla_extension uses (modules deleted in jax 0.9.0)."
    triggers = (b"xla_bridge", b"xla_client", b"xla_extension")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.active = ctx.options.target_jax >= MINIMUM
        self.import_depth = 0
        self.heads = heads_importing(ctx, MODULES)

    def visit_Import(self, node: cst.Import) -> None:
        self.import_depth += 1
        if self.active:
            for alias in node.names:
                full = get_full_name_for_node(alias.name) or ""
                if full in MODULES and alias.asname is not None:
                    self._unused_module(node, alias, get_full_name_for_node(alias.asname.name))

    def leave_Import(self, original_node: cst.Import) -> None:
        self.import_depth -= 1

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.import_depth += 1
        if not self.active or node.relative or isinstance(node.names, cst.ImportStar):
            return
        module = get_full_name_for_node(node.module) or ""
        if module == "jax.lib":
            for alias in node.names:
                name = get_full_name_for_node(alias.name) or ""
                local = get_full_name_for_node(alias.asname.name) if alias.asname else name
                if f"jax.lib.{name}" in MODULES:
                    self._unused_module(node, alias, local)
        elif module in MODULES:
            self._from_module(node, module)

    def leave_ImportFrom(self, original_node: cst.ImportFrom) -> None:
        self.import_depth -= 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not self.active or self.import_depth or head_name(node) not in self.heads:
            return
        qual = self.ctx.qualified_name(node)
        if qual is None:
            return
        if qual in MODULES:
            self._module_alias(node, qual)
            return
        module, _, attr = qual.rpartition(".")
        if module not in MODULES or attr in OTHER_RULES:
            return
        if self._guarded(node, qual):
            return
        new = REPLACEMENTS.get(qual)
        if new is None:
            self.report(node, Safety.MANUAL, f"`{qual}` has no public replacement ({module} was deleted in jax 0.9.0): "
                        "use the jax / jax.extend API that does the same, or drop it")
            return
        spelt = self.ctx.name_for(new)
        head = head_name(node)
        if head:
            drop_binding_if_unused(self.ctx, head)
        self.report(node, Safety.SAFE, f"`{qual}` -> `{new}` (the same object; {module} was deleted in jax 0.9.0)",
                    lambda _n: cst.parse_expression(spelt))

    def _module_alias(self, node: cst.Attribute, qual: str) -> None:
        """``xla_client = jax.lib.xla_client``: the same failure as the import it stands for."""
        parent = self.ctx.parents.get(node)
        if not isinstance(parent, cst.Assign) or parent.value is not node or self._guarded(node, qual):
            return
        self.report(parent, Safety.MANUAL, f"module alias of `{qual}`, which was deleted in jax 0.9.0: "
                    "this line fails at import time; delete it once its uses are migrated "
                    "(jax.ffi for custom-call targets, plain integers for api_version)")

    # -- imports -----------------------------------------------------------------
    def _unused_module(self, node: cst.CSTNode, alias: cst.ImportAlias, local: Optional[str]) -> None:
        if not local or self._used(local, node):
            return
        if jax_fallback_guard(self.ctx, node) is not None:
            return

        def edit(updated: cst.CSTNode):
            return import_without(updated, lambda a: a.deep_equals(alias))

        self.report(node, Safety.SAFE, f"unused import of `{local}` removed: the module was deleted in jax 0.9.0", edit)

    def _used(self, local: str, node: cst.CSTNode) -> bool:
        scope = self.ctx.scopes.get(node)
        if scope is None:
            return True
        # References from nested scopes hang off the assignment, not the scope's accesses.
        return any(assignment.references for assignment in scope.assignments[local])

    def _from_module(self, node: cst.ImportFrom, module: str) -> None:
        if self._guarded(node, module):
            return
        moved, kept = [], []
        for alias in node.names:
            name = get_full_name_for_node(alias.name) or ""
            if name in OTHER_RULES:
                kept.append(alias)
                continue
            new = REPLACEMENTS.get(f"{module}.{name}")
            if new is None:
                kept.append(alias)
                self.report(node, Safety.MANUAL, f"`{module}.{name}` has no public replacement ({module} was deleted in jax 0.9.0)")
                continue
            moved.append((alias, name, new))
        if not moved:
            return
        for alias, name, new in moved:
            local = get_full_name_for_node(alias.asname.name) if alias.asname else name
            new_module, _, new_name = new.rpartition(".")
            self.ctx.add_import(new_module, new_name, local if local != new_name else None)
        moved_names = {name for _, name, _ in moved}

        def edit(updated: cst.CSTNode):
            return import_without(updated, lambda a: (get_full_name_for_node(a.name) or "") in moved_names)

        listing = ", ".join(f"{module}.{name} -> {new}" for _, name, new in moved)
        self.report(node, Safety.SAFE, f"{listing} (the same objects; {module} was deleted in jax 0.9.0)", edit)

    def _guarded(self, node: cst.CSTNode, what: str) -> bool:
        guard = jax_fallback_guard(self.ctx, node)
        if guard is None:
            return False
        self.report(node, Safety.MANUAL, f"`{what}` inside {guard} left as is: that branch serves older jax releases")
        return True
