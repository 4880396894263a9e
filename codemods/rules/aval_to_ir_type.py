"""``aval-to-ir-type``: pass the module context to ``mlir.aval_to_ir_type(s)``.

Legacy form
    ``mlir.aval_to_ir_type(aval)`` and ``mlir.aval_to_ir_types(aval)`` with the abstract
    value alone, as lowering rules wrote them to build ``result_types``. jax **0.10.1**
    made the module context the first parameter (``(ctx, aval)``), so the one-argument
    call fails while lowering: ``TypeError: aval_to_ir_type() missing 1 required
    positional argument: 'aval'``. (No changelog entry; the signature changed in the
    source.)

Replacement
    ``mlir.aval_to_ir_type(ctx.module_context, aval)``, where ``ctx`` is the enclosing
    lowering rule's first parameter (closures and comprehensions inside the rule see it
    too); passed to ``map`` it becomes ``functools.partial(mlir.aval_to_ir_type,
    ctx.module_context)``. Applied only for a ``--target-jax`` of 0.10.1 or later: older
    releases take the one-argument form and reject the two-argument one. Without a lowering context in
    reach the change is manual. A call inside a compatibility guard is left for the jax
    releases the guard selects, and reported.

What the kernel receives afterwards
    Unchanged: the same MLIR type is built, so the custom call's result types are the
    same.

Before::

    def _lowering(ctx, x):
        out_type = mlir.aval_to_ir_type(ctx.avals_out[0])

After::

    def _lowering(ctx, x):
        out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
"""

from __future__ import annotations

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods.rule import Rule, Safety
from codemods.rules._shared import compatibility_guard, enclosing_lowering_rule

FUNCTIONS = frozenset(
    f"{module}.{fn}"
    for module in ("jax.interpreters.mlir", "jax._src.interpreters.mlir")
    for fn in ("aval_to_ir_type", "aval_to_ir_types")
)
CHANGED_IN = (0, 10, 1)
#: Calls that apply their first argument to every aval (``jax._src.util.safe_map`` too).
MAPPERS = frozenset({"map", "safe_map", "_map"})


class AvalToIrType(Rule):
    __doc__ = __doc__
    name = "aval-to-ir-type"
    summary = "Add the module context to mlir.aval_to_ir_type(aval) (signature (ctx, aval) since jax 0.10.1)."
    triggers = (b"aval_to_ir_type",)
    statement_scoped = True

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.options.target_jax < CHANGED_IN:
            return
        self.check_mapped(node)
        func = node.func
        short_name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if not short_name.startswith("aval_to_ir_type"):
            return  # cheap test first: resolving every call's name is costly
        qual = self.ctx.qualified_name(node.func)
        if qual not in FUNCTIONS:
            return
        if len(node.args) != 1 or node.args[0].star:
            return  # already (ctx, aval), or spelled in a way this rule does not guess at
        if node.args[0].keyword is not None and node.args[0].keyword.value != "aval":
            return
        function = qual.rsplit(".", 1)[1]
        rule = enclosing_lowering_rule(self.ctx, node)
        if rule is None:
            self.report(
                node,
                Safety.MANUAL,
                f"mlir.{function}(aval) takes the module context first since jax 0.10.1 and no lowering rule "
                f"context is in reach: pass `ctx.module_context` (from the lowering rule's ctx) as the first argument",
            )
            return
        guard = compatibility_guard(self.ctx, node)
        if guard is not None:
            self.report(
                node,
                Safety.MANUAL,
                f"mlir.{function}(aval) inside the compatibility guard {guard}; left as is. On jax >= 0.10.1 "
                f"call mlir.{function}({rule.ctx_name}.module_context, aval)",
            )
            return
        context = cst.parse_expression(f"{rule.ctx_name}.module_context")

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            first = cst.Arg(context, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            return updated.with_changes(args=[first, *updated.args])

        self.report(
            node,
            Safety.SAFE,
            f"mlir.{function} takes the module context first since jax 0.10.1: passing {rule.ctx_name}.module_context",
            edit,
            kernel_receives="unchanged (the same result types)",
        )

    def check_mapped(self, node: cst.Call) -> None:
        """``map(mlir.aval_to_ir_type, ctx.avals_out)``: the function is passed, not called."""
        mapper = get_full_name_for_node(node.func) or ""
        if mapper.rsplit(".", 1)[-1] not in MAPPERS or len(node.args) < 2 or node.args[0].keyword is not None:
            return
        func = node.args[0].value
        short_name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if not short_name.startswith("aval_to_ir_type") or self.ctx.qualified_name(func) not in FUNCTIONS:
            return
        rule = enclosing_lowering_rule(self.ctx, node)
        guard = compatibility_guard(self.ctx, node)
        if rule is None or guard is not None:
            why = "no lowering rule context is in reach" if rule is None else f"it sits in the compatibility guard {guard}"
            self.report(
                func,
                Safety.MANUAL,
                f"mlir.{short_name} mapped over avals takes the module context first since jax 0.10.1 and {why}: "
                f"map `functools.partial(mlir.{short_name}, ctx.module_context)` instead",
            )
            return
        ctx_name = rule.ctx_name

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            partial = self.ctx.name_for("functools.partial")
            return cst.Call(
                cst.parse_expression(partial),
                [
                    cst.Arg(updated, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                    cst.Arg(cst.parse_expression(f"{ctx_name}.module_context")),
                ],
            )

        self.report(
            func,
            Safety.SAFE,
            f"mlir.{short_name} takes the module context first since jax 0.10.1: mapping "
            f"functools.partial(mlir.{short_name}, {ctx_name}.module_context)",
            edit,
            kernel_receives="unchanged (the same result types)",
        )
