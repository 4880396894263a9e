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
    ``xla_client.FftType``                                      ``jax.lax.FftType``
    ``xla_client._xla.mlir.deserialize_portable_artifact``,     ``jax.extend.mlir.*`` (minimum
    ``serialize_portable_artifact``, ``refine_polymorphic_      jax 0.7.2: the functions
    shapes``, ``hlo_to_stablehlo`` (also ``xla_extension.       ``jax.extend.mlir`` binds from
    mlir``)                                                     the extension; 0.6.2 lacks them)
    ==========================================================  ===============================

    A module alias made by assignment (``xla_client = jax.lib.xla_client``) goes, with
    any alias of a member of it that nothing reads (``xops = xla_client.ops``), when every
    other use is replaced by another rule's accepted edit in the same run: the callee of
    a rewritten ``register_custom_call_target`` call, or an
    ``api_version=xla_client.ops.CustomCallApiVersion.X`` argument of a rewritten custom
    call (it becomes the integer). Otherwise the alias is reported as manual.

    A module-level alias of a member (``xops = xla_client.ops``, the extending-jax
    template's line) that nothing reads is deleted, and with it the import it alone kept.

    A module-level ``del os, xla_client`` (mpi4jax 0.2) loses the deleted module's name, so
    the import can go with its last migrated use (the ``del`` would otherwise raise
    NameError); a ``del`` of that name alone goes whole. So does ``jax.lib.xla_client``
    spelt in full after ``import jax.lib.xla_client`` (AttributeError otherwise).

    An import whose name nothing uses is removed. ``register_custom_call_target``,
    ``ops`` and ``Shape`` are left to ``register-custom-call-target`` and
    ``xla-translation-rule``. Every other attribute has no public replacement and is
    reported as manual, and so is ``jax.lib.xla_bridge`` read as a module object through
    ``import jax`` (alpa's ``setattr(jax.lib.xla_bridge, "get_backend", patched)``). For a
    target jax below 0.5.0 nothing is changed.

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
from codemods.rules.custom_call_api import _api_version_number
from codemods.rules._shared import drop_binding_if_unused, head_name, heads_importing, import_without, jax_fallback_guard

#: ``jax.lib.xla_bridge.xla_client`` is the xla_client module itself, seen through xla_bridge.
MODULES = ("jax.lib.xla_bridge", "jax.lib.xla_client", "jax.lib.xla_extension", "jax.lib.xla_bridge.xla_client")
#: Reached through xla_bridge, xla_client is a module whose members are migrated (or
#: reported) where they are used, like a direct import of it.
CLIENT_THROUGH_BRIDGE = "jax.lib.xla_bridge.xla_client"
REPLACEMENTS = {
    "jax.lib.xla_bridge.get_backend": "jax.extend.backend.get_backend",
    "jax.lib.xla_bridge.backends": "jax.extend.backend.backends",
    **{f"jax.lib.xla_bridge.{n}": f"jax.{n}" for n in (
        "default_backend", "devices", "local_devices", "device_count", "local_device_count",
        "process_index", "process_count",
    )},
    **{f"jax.lib.{m}.XlaRuntimeError": "jax.errors.JaxRuntimeError" for m in ("xla_client", "xla_extension")},
    **{f"jax.lib.{m}.Device": "jax.Device" for m in ("xla_client", "xla_extension")},
    # jax 0.5.3: ``xla_client.FftType is jax.lax.FftType`` (jax.lax has it since 0.4.32).
    "jax.lib.xla_client.FftType": "jax.lax.FftType",
}
#: The MLIR helpers of the compiled extension (``xla_client._xla`` is ``xla_extension``,
#: renamed ``_jax``): ``jax.extend.mlir`` binds the same functions (jax 0.7.2 and 0.10.2
#: read ``_jax.mlir.<name>``; 0.6.2 lacks them, so the minimum is the release checked).
DEEP_REPLACEMENTS = {
    f"jax.lib.{module}.mlir.{name}": f"jax.extend.mlir.{name}"
    for module in ("xla_client._xla", "xla_extension")
    for name in ("deserialize_portable_artifact", "serialize_portable_artifact", "refine_polymorphic_shapes",
                 "hlo_to_stablehlo")
}
DEEP_MINIMUM = (0, 7, 2)
#: Attributes other rules migrate; reporting them here would duplicate their findings.
OTHER_RULES = frozenset({"ops", "Shape", "register_custom_call_target", "register_cpu_custom_call_target"})
MINIMUM = (0, 5, 0)


class XlaClientImport(Rule):
    __doc__ = __doc__
    name = "xla-client-import"
    summary = "Replace or drop leftover jax.lib.xla_client / xla_bridge / xla_extension uses (modules deleted in jax 0.9.0)."
    triggers = (b"xla_bridge", b"xla_client", b"xla_extension")
    statement_scoped = True

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.active = ctx.options.target_jax >= MINIMUM
        self.import_depth = 0
        self.heads = heads_importing(ctx, MODULES)
        self.aliases: list[tuple[cst.Assign, str]] = []
        #: Values of member aliases this rule deletes (nothing reads them).
        self.dead: set[int] = set()

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

    def visit_Assign(self, node: cst.Assign) -> None:
        """``xops = xla_client.ops`` that nothing reads: it fails at import time and keeps
        the import alive, so it goes (safe: no code sees the name)."""
        value = node.value
        if not self.active or not isinstance(value, cst.Attribute) or head_name(value) not in self.heads:
            return
        name = _sole_target(node)
        if name is None:
            return
        qual = self.ctx.qualified_name(value) or ""
        if not any(qual.startswith(m + ".") for m in MODULES) or jax_fallback_guard(self.ctx, node) is not None:
            return
        scope = self.ctx.scopes.get(node)
        if scope is None or scope is not scope.globals or not _unread(scope, name):
            return
        if f'"{name}"' in self.ctx.source.decode("utf-8", "replace"):
            return
        self.dead.add(id(value))
        drop_binding_if_unused(self.ctx, head_name(value))
        self.report(node, Safety.SAFE, f"alias `{name}` of `{qual}` removed: nothing reads it, and it fails at import "
                    "time (the module was deleted in jax 0.9.0)", lambda _updated: cst.RemovalSentinel.REMOVE)

    def visit_Del(self, node: cst.Del) -> None:
        """``del os, xla_client`` at the end of a module (mpi4jax 0.2): the name goes from the
        ``del`` so the import can go once its uses are migrated; the statement would raise
        NameError without it, and the deleted module's name is nowhere to keep. So does
        ``jax.lib.xla_client`` spelt in full after ``import jax.lib.xla_client``."""
        if not self.active or not isinstance(self.ctx.parents.get(self.ctx.parents.get(node)), cst.Module):
            return
        targets = node.target.elements if isinstance(node.target, cst.Tuple) else None
        names = [e.value for e in targets] if targets is not None else [node.target]

        def deleted_module(n: cst.BaseExpression) -> Optional[str]:
            """``xla_client`` bound by an import of it, or ``jax.lib.xla_client`` spelt in
            full (``import jax.lib.xla_client``)."""
            if isinstance(n, cst.Name):
                return n.value if n.value in self.heads else None
            if isinstance(n, cst.Attribute) and head_name(n) in self.heads \
                    and get_full_name_for_node(n) in MODULES and self.ctx.qualified_name(n) in MODULES:
                return get_full_name_for_node(n)
            return None

        gone = {name for n in names if (name := deleted_module(n)) is not None}
        if not gone or jax_fallback_guard(self.ctx, node) is not None:
            return
        for head in gone:
            if "." in head:
                self.ctx.remove_dotted_import_if_unused(head)
            else:
                drop_binding_if_unused(self.ctx, head)
        kept = [n for n in names if deleted_module(n) is None]

        def edit(updated: cst.CSTNode):
            if not kept:
                return cst.RemovalSentinel.REMOVE
            if len(kept) == 1:
                return updated.with_changes(target=kept[0].deep_clone())
            elements = [cst.Element(n.deep_clone(), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                        for n in kept[:-1]] + [cst.Element(kept[-1].deep_clone())]
            return updated.with_changes(target=cst.Tuple(elements, lpar=[], rpar=[]))

        listed = ", ".join(f"`{g}`" for g in sorted(gone))
        self.report(node, Safety.SAFE, f"{listed} dropped from `del`: the module it names was deleted in jax 0.9.0, and "
                    "its import goes once nothing else reads it (a `del` of a name no longer bound raises NameError, of "
                    "a module jax no longer has AttributeError)",
                    edit)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not self.active or self.import_depth or head_name(node) not in self.heads or id(node) in self.dead:
            return
        qual = self.ctx.qualified_name(node)
        if qual is None:
            return
        if qual in MODULES:
            self._module_alias(node, qual)
            return
        if qual in DEEP_REPLACEMENTS:
            self._deep_replacement(node, qual)
            return
        module, _, attr = qual.rpartition(".")
        if module not in MODULES or attr in OTHER_RULES or qual == CLIENT_THROUGH_BRIDGE:
            return
        if self._guarded(node, qual):
            return
        new = REPLACEMENTS.get(qual)
        if new is None:
            self.report(node, Safety.MANUAL, f"`{qual}` has no public replacement ({module} was deleted in jax 0.9.0): "
                        "use the jax / jax.extend API that does the same, or drop it")
            return
        spelt = self.ctx.name_for(new, site=node)
        head = head_name(node)
        if head:
            drop_binding_if_unused(self.ctx, head)
        self.report(node, Safety.SAFE, f"`{qual}` -> `{new}` (the same object; {module} was deleted in jax 0.9.0)",
                    lambda _n: cst.parse_expression(spelt))

    def _deep_replacement(self, node: cst.Attribute, qual: str) -> None:
        """``xc._xla.mlir.deserialize_portable_artifact`` -> ``jax.extend.mlir.<same>``.

        The inner attributes (``xc._xla``) are this one use: they are not reported alone."""
        inner = node.value
        while isinstance(inner, cst.Attribute):
            self.dead.add(id(inner))
            inner = inner.value
        if self._guarded(node, qual):
            return
        new = DEEP_REPLACEMENTS[qual]
        if tuple(self.ctx.options.target_jax) < DEEP_MINIMUM:
            self.report(node, Safety.MANUAL, f"`{qual}` is gone with jax.lib.xla_client (deleted in jax 0.9.0); "
                        f"`{new}` is the same function from jax 0.7.2 on, newer than the target")
            return
        spelt = self.ctx.name_for(new, site=node)
        drop_binding_if_unused(self.ctx, head_name(node))
        self.report(node, Safety.SAFE, f"`{qual}` -> `{new}` (the same function of the compiled extension; "
                    "jax.lib.xla_client was deleted in jax 0.9.0)", lambda _n: cst.parse_expression(spelt))

    def _module_alias(self, node: cst.Attribute, qual: str) -> None:
        """``xla_client = jax.lib.xla_client``: the same failure as the import it stands for.

        Decided once the whole module is visited (``leave_Module``): only then are the
        other rules' findings known. ``jax.lib.xla_bridge`` read as an object otherwise
        (passed, patched) is reported here and now: nothing replaces the module whole."""
        parent = self.ctx.parents.get(node)
        if isinstance(parent, cst.Assign) and parent.value is node:
            if not self._guarded(node, qual):
                self.aliases.append((parent, qual))
            return
        if isinstance(parent, cst.Attribute) and parent.value is node or qual == CLIENT_THROUGH_BRIDGE \
                or self._guarded(node, qual):
            return  # a member read through it is the finding (or another rule's)
        if qual == "jax.lib.xla_bridge":
            # ``setattr(jax.lib.xla_bridge, "get_backend", patched)`` (alpa): the module as a value.
            self.report(node, Safety.MANUAL, f"`{qual}` was deleted in jax 0.9.0 and this reads the module itself: "
                        "what it held is in jax.extend.backend (get_backend, backends); patching or passing the "
                        "module has no public replacement")

    def leave_Module(self, original_node: cst.Module) -> None:
        consumed = self._consumed_nodes() if self.aliases else set()
        for assign, qual in self.aliases:
            dead = self._alias_uses_all_rewritten(assign, consumed)
            if dead is None:
                self.report(assign, Safety.MANUAL, f"module alias of `{qual}`, which was deleted in jax 0.9.0: "
                            "this line fails at import time; delete it once its uses are migrated "
                            "(jax.ffi for custom-call targets, plain integers for api_version)")
                continue
            for stmt in (assign, *dead):
                what = "module alias" if stmt is assign else "alias of a member"
                self.report(stmt, Safety.SAFE, f"{what} of `{qual}` (deleted in jax 0.9.0) removed: every use of it "
                            "is rewritten by this run (register_ffi_target, integer api_version) or unused",
                            lambda _updated: cst.RemovalSentinel.REMOVE)

    def _alias_uses_all_rewritten(self, assign: cst.Assign, consumed: set[int]) -> Optional[list[cst.Assign]]:
        """The dead member aliases (``xops = xla_client.ops``, never read) to delete with
        ``assign``, when every other read of the alias sits where another rule's accepted
        edit replaces it; ``None`` otherwise."""
        local = _sole_target(assign)
        if local is None:
            return None
        scope = self.ctx.scopes.get(assign)
        if scope is None or scope is not scope.globals or len(scope.assignments[local]) != 1:
            return None
        dead: list[cst.Assign] = []
        for assignment in scope.assignments[local]:
            for access in assignment.references:
                use = access.node
                chain = use
                parents = self.ctx.parents
                while isinstance(parents.get(chain), cst.Attribute) and parents[chain].value is chain:
                    chain = parents[chain]
                holder = parents.get(chain)
                target = _sole_target(holder) if isinstance(holder, cst.Assign) and holder.value is chain else None
                if target is not None and _unread(scope, target):
                    dead.append(holder)
                elif id(chain) not in consumed:
                    return None
        return dead

    def _consumed_nodes(self) -> set[int]:
        """Alias expressions other rules' accepted edits replace: the callee of a rewritten
        ``register_custom_call_target`` call, and an ``api_version=<...>.CustomCallApiVersion.X``
        argument of a rewritten custom call (it becomes the integer)."""
        options = self.ctx.options
        consumed: set[int] = set()
        for finding in self.ctx.findings:
            safety = finding.change.safety
            if finding.edit is None or finding.suppressed or not (
                    safety is Safety.SAFE or safety is Safety.UNSAFE and options.unsafe_fixes):
                continue
            call = finding.node
            while isinstance(call, (cst.Attribute, cst.Subscript)):  # ``custom_call(...).results``
                call = call.value
            if not isinstance(call, cst.Call):
                continue
            if finding.change.rule == "register-custom-call-target":
                consumed.add(id(call.func))
            elif finding.change.rule in ("custom-call-api", "hlo-helpers"):
                for arg in call.args:
                    if (arg.keyword is not None and arg.keyword.value == "api_version"
                            and _api_version_number(arg.value) is not None):
                        consumed.add(id(arg.value))
        return consumed

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
            if name in OTHER_RULES or f"{module}.{name}" == CLIENT_THROUGH_BRIDGE:
                kept.append(alias)
                if f"{module}.{name}" == CLIENT_THROUGH_BRIDGE:
                    # xla_client itself, its uses migrated where they are: unused, it goes.
                    self._unused_module(node, alias, get_full_name_for_node(alias.asname.name) if alias.asname else name)
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
            self.ctx.add_import(new_module, new_name, local if local != new_name else None, site=node)
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


def _sole_target(assign: cst.Assign) -> Optional[str]:
    """The name ``assign`` binds when it binds exactly one plain name."""
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    return assign.targets[0].target.value


def _unread(scope, name: str) -> bool:
    """``name`` is assigned once in ``scope`` and nothing reads it."""
    assignments = scope.assignments[name]
    return len(assignments) == 1 and not any(a.references for a in assignments)
