"""``hlo-helpers``: the other ``jaxlib.hlo_helpers`` functions extension code imported.

Legacy form
    ``from jaxlib.hlo_helpers import custom_call, hlo_const, hlo_s32, hlo_u8,
    shape_dtype_to_ir_type, mk_result_types_and_shapes, ...``. The whole module was
    **removed in jax 0.8.0** (``ModuleNotFoundError: No module named
    'jaxlib.hlo_helpers'``), so one helper left behind keeps the module from importing even
    after ``custom-call-api`` has migrated the custom call. (``jaxlib.mhlo_helpers``,
    its jaxlib <= 0.4.1 name, is treated the same.)

Replacement (public ``jax.interpreters.mlir`` API, present in every jax the rule targets)
    * ``hlo_const(x)`` -> ``mlir.ir_constant(x)``: both build a ``stablehlo.constant`` of
      the numpy array with the element type of its dtype.
    * ``hlo_s32(x)`` / ``hlo_u8(x)`` -> ``mlir.ir_constant(np.array(x, dtype=np.int32))`` /
      ``np.uint8``: the array those helpers built.
    * ``shape_dtype_to_ir_type(shape, dtype)`` ->
      ``ir.RankedTensorType.get(shape, mlir.dtype_to_ir_type(np.dtype(dtype)))``.
    * Any other helper, and an import whose names this module never uses (a re-export for
      other modules), is reported as manual with the reason: the module fails to import
      until it is gone. An unused ``custom_call`` is custom-call-api's: it drops a plain
      one, and in a run with every rule decides on a re-exported one (deleted together with
      the migration of every module importing it, or reported there with what keeps it).
    ``custom_call`` itself belongs to ``custom-call-api``. Nothing happens for a
    ``--target-jax`` below 0.8.0, or inside a compatibility guard.

What the kernel receives afterwards
    Unchanged: the same constant operands (values, shapes and element types).

Before::

    from jaxlib.hlo_helpers import custom_call, hlo_const
    descriptor = hlo_const(np.frombuffer(descriptor_bytes, dtype=np.uint8))

After::

    from jax.interpreters import mlir
    descriptor = mlir.ir_constant(np.frombuffer(descriptor_bytes, dtype=np.uint8))
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods.engine import accepted
from codemods.rule import Rule, Safety
from codemods.rules._shared import compatibility_guard, member_spelling, positional, serves_older_jax
from codemods.rules.custom_call_api import reexport_decided

MODULES = ("jaxlib.hlo_helpers", "jaxlib.mhlo_helpers")
REMOVED_IN = (0, 8, 0)
#: helper -> (template, needs numpy); ``{0}`` is the first argument, ``{mlir}``/``{np}``/``{ir}`` the spellings.
TEMPLATES = {
    "hlo_const": ("{mlir}.ir_constant({0})", False),
    "hlo_s32": ("{mlir}.ir_constant({np}.array({0}, dtype={np}.int32))", True),
    "hlo_u8": ("{mlir}.ir_constant({np}.array({0}, dtype={np}.uint8))", True),
}
GUIDANCE = {
    "mk_result_types_and_shapes": "build the result types with `mlir.aval_to_ir_type(ctx.module_context, aval)` "
    "(or let `jax.ffi.ffi_lowering` derive them from ctx.avals_out) and pass `result_shapes` only for dynamic shapes",
    "shape_dtype_to_ir_type": "use `ir.RankedTensorType.get(shape, mlir.dtype_to_ir_type(np.dtype(dtype)))`",
    "hlo_add": "use `stablehlo.add` on IR values (or a Python `+` on static ints)",
    "hlo_min": "use `stablehlo.minimum` on IR values (or `min` on static ints)",
    "ensure_hlo_s32": "use `mlir.ir_constant(np.array(x, dtype=np.int32))` for ints",
    "shape_tensor": "use `mlir.shape_tensor(mlir.eval_dynamic_shape_as_ivals(ctx, shape))`",
}


class HloHelpers(Rule):
    __doc__ = __doc__
    name = "hlo-helpers"
    summary = "Rewrite hlo_const/hlo_s32/hlo_u8/shape_dtype_to_ir_type from jaxlib.hlo_helpers (removed in jax 0.8.0); report the rest."
    triggers = (b"hlo_helpers",)
    statement_scoped = True

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.uses: dict[str, int] = {}
        self._binding_names: set[cst.CSTNode] = set()
        self._attribute_names: set[cst.CSTNode] = set()

    def active(self) -> bool:
        return self.ctx.options.target_jax >= REMOVED_IN

    def helper(self, node: cst.CSTNode) -> Optional[str]:
        name = node.attr.value if isinstance(node, cst.Attribute) else node.value if isinstance(node, cst.Name) else None
        if name is None or name == "custom_call":
            return None
        qual = self.ctx.qualified_name(node)
        if qual is None:
            return None
        module, _, helper = qual.rpartition(".")
        if helper == "custom_call":
            return None  # custom-call-api's, also imported under another name (``as _custom_call``)
        return helper if module in MODULES else None

    def visit_Call(self, node: cst.Call) -> None:
        if not self.active():
            return
        helper = self.helper(node.func)
        if helper is None or compatibility_guard(self.ctx, node) is not None:
            return
        plain = positional(node)
        if helper in TEMPLATES and len(plain) == 1 and len(node.args) == 1:
            self.rewrite_constant(node, helper)
        elif helper == "shape_dtype_to_ir_type" and len(plain) == 2 and len(node.args) == 2:
            self.rewrite_type(node)

    # Names that an import binds are not uses. They are noted when their parent is
    # visited (parents come first in the walk): asking the parent of every name would
    # need the whole module's parent map, the most expensive step of this rule.
    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        self._binding_names.add(node.name)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._binding_names.add(node.name)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._attribute_names.add(node.attr)

    def visit_Name(self, node: cst.Name) -> None:
        if not self.in_import(node):
            self.uses[node.value] = self.uses.get(node.value, 0) + 1

    def in_import(self, node: cst.CSTNode) -> bool:
        return node in self._binding_names

    def rewrite_constant(self, node: cst.Call, helper: str) -> None:
        template, numpy = TEMPLATES[helper]

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            self.drop_import(helper)
            spellings = {"mlir": member_spelling(self.ctx, "jax.interpreters", "mlir")}
            if numpy:
                spellings["np"] = self.ctx.name_for("numpy.array").rsplit(".", 1)[0]
            text = template.format("__arg__", **spellings)
            return _fill(cst.parse_expression(text), [updated.args[0].value])

        self.handled.add(node.func)
        self.report(
            node,
            Safety.SAFE,
            f"jaxlib.hlo_helpers.{helper} was removed in jax 0.8.0; the same constant is built by mlir.ir_constant",
            edit,
            kernel_receives="unchanged (the same constant operand)",
        )

    def rewrite_type(self, node: cst.Call) -> None:
        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            self.drop_import("shape_dtype_to_ir_type")
            mlir = member_spelling(self.ctx, "jax.interpreters", "mlir")
            np = self.ctx.name_for("numpy.dtype").rsplit(".", 1)[0]
            ir = self.ctx.names.binding_for("jaxlib.mlir.ir") or member_spelling(self.ctx, "jax.interpreters.mlir", "ir")
            text = f"{ir}.RankedTensorType.get(__arg__, {mlir}.dtype_to_ir_type({np}.dtype(__arg__)))"
            return _fill(cst.parse_expression(text), [updated.args[0].value, updated.args[1].value])

        self.handled.add(node.func)
        self.report(
            node,
            Safety.SAFE,
            "jaxlib.hlo_helpers.shape_dtype_to_ir_type was removed in jax 0.8.0; building the same ranked tensor type",
            edit,
            kernel_receives="unchanged (the same types)",
        )

    def _imported_locals(self) -> frozenset:
        found = getattr(self, "_locals", None)
        if found is None:
            found = self._locals = frozenset(binding.local for binding in self.ctx.names.imports)
        return found

    @property
    def handled(self) -> set:
        if not hasattr(self, "_handled"):
            self._handled: set = set()
        return self._handled

    def leave_Name(self, original_node: cst.Name) -> None:
        self._leftover(original_node)

    def leave_Attribute(self, original_node: cst.Attribute) -> None:
        self._leftover(original_node)

    def _leftover(self, node: cst.CSTNode) -> None:
        """A helper reference no rewrite covers keeps the removed module imported."""
        if type(node) is cst.Name and node.value not in self._imported_locals():
            return  # no import binds it, so it names no helper (the common case, by far)
        if not self.active() or node in self.handled or self.in_import(node):
            return
        if node in self._attribute_names:
            return  # the ``x`` of ``a.x`` is looked at as part of ``a.x``
        helper = self.helper(node)
        if helper is None:
            return
        guard = compatibility_guard(self.ctx, node)
        if guard is not None:
            return
        self.report(
            node,
            Safety.MANUAL,
            f"jaxlib.hlo_helpers.{helper} was removed in jax 0.8.0 (the module no longer imports): "
            + GUIDANCE.get(helper, "rebuild it from the public jax.interpreters.mlir / jax.extend.mlir API"),
        )

    def leave_Module(self, original_node: cst.Module) -> None:
        """Imports of the removed modules that this module never uses: re-exports."""
        if not self.active():
            return
        left = self.sites_left()
        for binding in self.ctx.names.imports:
            if binding.from_module not in MODULES:
                continue
            if serves_older_jax(self.ctx, binding.statement):
                continue  # kept for the releases that still have the module
            if binding.local in left:
                self.report(
                    binding.statement,
                    Safety.MANUAL,
                    f"this import from the removed {binding.from_module} (gone in jax 0.8.0) stays while `{binding.local}` "
                    "still has uses that need a manual change (see the findings at them); delete it afterwards",
                )
                continue
            if self.uses.get(binding.local, 0):
                continue
            if binding.qualified.endswith(".custom_call") and (self._dropped_when_unused(binding)
                                                               or reexport_decided(self.ctx, binding.local)):
                continue  # custom-call-api drops an unused builder import, or decides on the re-export
            self.report(
                binding.statement,
                Safety.MANUAL,
                f"`{binding.local}` is imported from the removed {binding.from_module} (gone in jax 0.8.0) and not used "
                "here, so it is re-exported for other modules: migrate their uses (custom-call-api follows the "
                "re-export to their call sites) and delete this import, or the module fails to import",
            )

    def _dropped_when_unused(self, binding) -> bool:
        """An import that custom-call-api removes when nothing uses it: one inside a function,
        or a plain module-level statement (under a module-level ``if``/``try`` it may be a
        re-export chosen by release, and stays)."""
        if not binding.top_level:
            return True
        return any(small is binding.statement for stmt in self.ctx.module.body
                   if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body)

    def sites_left(self) -> set[str]:
        """Local names of removed helpers with a site no accepted rewrite covers."""
        left: set[str] = set()
        for finding in self.ctx.findings:
            change = finding.change
            if change.rule not in ("custom-call-api", "hlo-helpers") or accepted(finding, self.ctx.options):
                continue
            node = finding.node
            inner = node
            if isinstance(inner, cst.Attribute) and isinstance(inner.value, cst.Call):
                inner = inner.value  # `custom_call(...).results`
            elif isinstance(inner, (cst.List, cst.Tuple)) and len(inner.elements) == 1:
                inner = inner.elements[0].value  # `[custom_call(...)]`
            target = inner.func if isinstance(inner, cst.Call) else inner
            name = (get_full_name_for_node(target) or "").split(".")[0]
            if name:
                left.add(name)
        return left

    def drop_import(self, helper: str) -> None:
        for binding in self.ctx.names.imports:
            if binding.from_module in MODULES and binding.qualified.endswith("." + helper):
                obj = binding.qualified.rsplit(".", 1)[1]
                self.ctx.remove_import_if_unused(binding.from_module, obj, None if binding.local == obj else binding.local)


class _Fill(cst.CSTTransformer):
    def __init__(self, values: list[cst.BaseExpression]) -> None:
        super().__init__()
        self.values = values
        self.seen = 0

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name):
        if original_node.value != "__arg__":
            return updated_node
        value = self.values[min(self.seen, len(self.values) - 1)]
        self.seen += 1
        return value


def _fill(template: cst.BaseExpression, values: list[cst.BaseExpression]) -> cst.BaseExpression:
    return template.visit(_Fill(values))
