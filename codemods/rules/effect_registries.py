"""``effect-registries``: effects are registered by type in ``jax._src.effects`` now.

Legacy form
    Extensions whose primitives carry a side effect (mpi4jax's ``MPIEffect``, the ordered
    ``DebugEffect`` of callback libraries) registered an effect *value* in plain Python
    sets spread over jax's modules::

        mlir.lowerable_effects.add(effect)            # jax.interpreters.mlir
        lcf.allowed_effects.add(effect)               # jax._src.lax.control_flow
        custom_derivatives.allowed_effects.add(effect)
        core.ordered_effects.add(effect)              # jax.core / jax._src.core
        ad_checkpoint.remat_allowed_effects.add(effect)

    jax then gathered them in ``jax._src.effects`` as ``EffectTypeSet`` objects, which hold
    effect *types* (``add_type``; ``contains(effect)`` is an ``isinstance`` test). The
    sets of ``control_flow``, ``custom_derivatives``, ``ad_checkpoint`` and ``core`` are
    gone (``AttributeError`` when the module is imported); ``mlir.lowerable_effects`` is
    still there but is an ``EffectTypeSet`` without ``add`` (``AttributeError: 'EffectTypeSet'
    object has no attribute 'add'``). Both stop the extension's module from importing. Every
    release checked here (jax 0.4.28 to 0.10.2) has the new form; the rule does nothing for
    an older ``--target-jax``.

Replacement
    ``effects.<registry>.add_type(<the effect's type>)`` with ``from jax._src import
    effects`` (private: jax offers no public registry), the registries named
    ``lowerable_effects``, ``control_flow_allowed_effects``,
    ``custom_derivatives_allowed_effects``, ``ordered_effects`` and ``remat_allowed_effects``.

    * **safe** when the value is an instance made in this module of a class defined here
      (``effect = MPIEffect()``, or ``MPIEffect()`` in the call): registering the class
      admits what the set admitted, the one value the module makes;
    * **unsafe** otherwise (``DebugEffect.PRINT`` of an enum, a string, a value from
      elsewhere): ``add_type(type(value))`` admits every value of that type, more than the
      one the set held;
    * any other use of a registry that is gone (read, iterated, ``remove``) is reported as
      manual with the registry it became; so is a site inside a compatibility guard.

What the kernel receives afterwards
    Unchanged: effect registration decides whether jax stages, orders and lowers the
    primitive's equations, not what a custom call is given.

Before::

    from jax.interpreters import mlir
    from jax._src.lax import control_flow as lcf

    effect = MPIEffect()
    mlir.lowerable_effects.add(effect)
    lcf.allowed_effects.add(effect)

After::

    from jax.interpreters import mlir
    from jax._src.lax import control_flow as lcf
    from jax._src import effects

    effect = MPIEffect()
    effects.lowerable_effects.add_type(MPIEffect)
    effects.control_flow_allowed_effects.add_type(MPIEffect)
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods import walk
from codemods.rule import Rule, Safety
from codemods.rules._installed_jax import first_missing
from codemods.rules._shared import compatibility_guard, drop_binding_if_unused, member_spelling

#: Each legacy registry and the ``jax._src.effects`` set it became.
REGISTRIES = {
    "jax.interpreters.mlir.lowerable_effects": "lowerable_effects",
    "jax._src.interpreters.mlir.lowerable_effects": "lowerable_effects",
    "jax._src.lax.control_flow.allowed_effects": "control_flow_allowed_effects",
    "jax._src.custom_derivatives.allowed_effects": "custom_derivatives_allowed_effects",
    "jax.core.ordered_effects": "ordered_effects",
    "jax._src.core.ordered_effects": "ordered_effects",
    "jax._src.ad_checkpoint.remat_allowed_effects": "remat_allowed_effects",
}
#: The oldest release checked here whose registries are ``EffectTypeSet`` objects.
SINCE = (0, 4, 28)
CHANGED = "effects are registered by type in jax._src.effects (EffectTypeSet.add_type)"
KERNEL = "unchanged (effect registration does not change a custom call)"


class EffectRegistries(Rule):
    __doc__ = __doc__
    name = "effect-registries"
    summary = "Register a primitive's effect by type in jax._src.effects (the old sets of effect values are gone)."
    triggers = (b"effects",)
    statement_scoped = True

    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        if self.ctx.options.target_jax < SINCE:
            return False
        registry = self.ctx.qualified_name(node)
        new = REGISTRIES.get(registry or "")
        if new is None:
            return None
        up = self.ctx.parents.get(node)
        call = self.ctx.parents.get(up)
        adds = isinstance(up, cst.Attribute) and up.value is node and up.attr.value == "add" \
            and isinstance(call, cst.Call) and call.func is up and len(call.args) == 1 \
            and not call.args[0].star and call.args[0].keyword is None
        guard = compatibility_guard(self.ctx, node)
        if guard is not None:
            if adds or first_missing(registry) is not None:
                self.report(node, Safety.MANUAL, f"{CHANGED}; `{registry}` is inside the compatibility guard {guard} "
                            f"and left as is: on the releases without it, use effects.{new}.add_type(EffectClass)")
            return False
        if not adds:
            if first_missing(registry) is not None:
                self.report(node, Safety.MANUAL, f"{registry} is gone: {CHANGED}, this one as effects.{new} (from "
                            "jax._src import effects), which holds effect types: add_type(EffectClass), "
                            "contains(effect)")
            return False
        value = call.args[0].value
        cls = self._class_made_here(value)
        code = self.ctx.module.code_for_node(value)
        type_text = cls if cls is not None else f"type({code})"

        head = (get_full_name_for_node(node) or "").split(".")[0]

        def edit(_updated: cst.CSTNode) -> cst.CSTNode:
            spelled = member_spelling(self.ctx, "jax._src", "effects")
            return cst.parse_expression(f"{spelled}.{new}.add_type({type_text})")

        drop_binding_if_unused(self.ctx, head)
        if cls is not None:
            self.report(call, Safety.SAFE, f"{registry}.add({code}): {CHANGED}; `{code}` is the one {cls} this module "
                        f"makes, so registering {cls} admits what the set admitted", edit, kernel_receives=KERNEL)
        else:
            self.report(call, Safety.UNSAFE, f"{registry}.add({code}): {CHANGED}; registering type({code}) admits every "
                        "value of that type, more than the one the set held (register the effect's own class if it "
                        "has one)", edit, kernel_receives=KERNEL)
        return False

    def _class_made_here(self, value: cst.BaseExpression) -> Optional[str]:
        """The class of this module whose instance ``value`` is: ``MPIEffect()``, or a name
        bound once, at module level, to such a call."""
        if isinstance(value, cst.Name):
            bound = [stmt for stmt in self._module_statements()
                     if isinstance(stmt, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == value.value
                                                              for t in stmt.targets)]
            if len(bound) != 1 or len(bound[0].targets) != 1 or not self._bound_once(value.value):
                return None
            value = bound[0].value
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            return None
        name = value.func.value
        classes = [stmt for stmt in self._lines() if isinstance(stmt, cst.ClassDef) and stmt.name.value == name]
        return name if len(classes) == 1 and self._bound_once(name) else None

    def _bound_once(self, name: str) -> bool:
        """Nothing else in the file binds ``name``: no other assignment, parameter, loop or
        ``with`` target, import, function or class of that name, anywhere."""
        count = 0

        class _Bindings(cst.CSTVisitor):
            def _target(self, target: cst.CSTNode) -> None:
                nonlocal count
                for sub in _names_in(target):
                    count += sub == name

            def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
                self._target(node.target)

            def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
                self._target(node.target)

            def visit_AugAssign(self, node: cst.AugAssign) -> None:
                self._target(node.target)

            def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
                self._target(node.target)

            def visit_For(self, node: cst.For) -> None:
                self._target(node.target)

            def visit_CompFor(self, node: cst.CompFor) -> None:
                self._target(node.target)

            def visit_AsName(self, node: cst.AsName) -> None:
                self._target(node.name)

            def visit_Param(self, node: cst.Param) -> None:
                self._target(node.name)

            def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
                self._target(node.name)

            def visit_ClassDef(self, node: cst.ClassDef) -> None:
                self._target(node.name)

            def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
                nonlocal count
                if node.asname is None:
                    count += (get_full_name_for_node(node.name) or "").split(".")[0] == name

            def visit_Global(self, node: cst.Global) -> None:
                nonlocal count
                count += 2 * any(n.name.value == name for n in node.names)  # assigned elsewhere

        walk.read(self.ctx.module, _Bindings())
        return count == 1


    def _module_statements(self) -> list[cst.BaseSmallStatement]:
        """The small statements of the module, also inside module-level ``if``/``try``."""
        return [small for line in self._lines() if isinstance(line, cst.SimpleStatementLine) for small in line.body]

    def _lines(self):
        """Statements at module level, and in module-level ``if``/``else``/``try`` blocks."""
        pending = list(self.ctx.module.body)
        while pending:
            stmt = pending.pop(0)
            yield stmt
            if isinstance(stmt, (cst.If, cst.Try)):
                for block in (stmt.body, getattr(stmt, "orelse", None), *getattr(stmt, "handlers", ())):
                    if isinstance(block, (cst.Else, cst.ExceptHandler)):
                        block = block.body
                    if isinstance(block, cst.If):
                        pending.append(block)
                    elif isinstance(block, cst.IndentedBlock):
                        pending.extend(block.body)


def _names_in(target: cst.CSTNode) -> list[str]:
    """The names a binding target binds (``a``, ``(a, b)``, ``[a, *b]``)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for element in target.elements for n in _names_in(element.value)]
    if isinstance(target, cst.StarredElement):
        return _names_in(target.value)
    return []
