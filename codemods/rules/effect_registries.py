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
      one the set held. Without ``--unsafe-fixes`` the site is reported as manual, naming
      that fix: the registry it reads is gone either way;
    * any other use of a registry that is gone (read, iterated, ``remove``) is reported as
      manual with the registry it became; so is a site inside a compatibility guard.

What the kernel receives afterwards
    Unchanged: effect registration decides whether jax stages, orders and lowers the
    primitive's equations, not what a custom call is given. So there is no case for
    ``make test-compat`` (it compares custom calls, and the legacy form fails on the oldest
    release it installs, 0.4.28); tests/test_effect_registries.py lowers an effectful
    primitive registered by the rewrite, in ``jit`` and in a loop, on the installed jax.

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
        gone = first_missing(registry) is not None
        guard = compatibility_guard(self.ctx, node)
        if guard is not None:
            if adds or gone:
                self.report(node, Safety.MANUAL, f"{CHANGED}; `{registry}` is inside the compatibility guard {guard} "
                            f"and left as is: on the releases without it, use effects.{new}.add_type(EffectClass)")
            return False
        if not adds:
            if gone:
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

        if cls is None and not self.ctx.options.unsafe_fixes:
            # Not applied: the gone registry stays, a manual finding naming the fix on offer.
            self.report(call, Safety.MANUAL, f"{registry}.add({code}): {CHANGED}; registering type({code}) would "
                        "admit every value of that type, more than the one the set held (register the effect's own "
                        f"class if it has one; `add_type(type({code}))` is applied with --unsafe-fixes)")
            return False
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
        bound once to such a call (``effect = MPIEffect()``)."""
        if isinstance(value, cst.Name):
            value = self.ctx.value_bound_once(value)
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            return None
        scope = self.ctx.scope_of(value.func)
        bindings = list(scope[value.func.value]) if scope is not None else []
        defined = len(bindings) == 1 and isinstance(getattr(bindings[0], "node", None), cst.ClassDef)
        return value.func.value if defined else None
