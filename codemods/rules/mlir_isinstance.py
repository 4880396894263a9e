"""``mlir-isinstance``: ``ir.RankedTensorType.isinstance(t)`` is ``isinstance(t, ir.RankedTensorType)`` now.

Legacy form
    The static ``isinstance`` method of the MLIR Python bindings' builtin classes, read
    through jax's or jaxlib's ``ir`` module (``jaxlib.mlir.ir``, ``jax._src.lib.mlir.ir``,
    ``jax.interpreters.mlir.ir``): ``ir.RankedTensorType.isinstance(x.type)``,
    ``ir.F32Type.isinstance(element_type)``, ``ir.DenseIntElementsAttr.isinstance(a)``,
    ``ir.OpResult.isinstance(v)``. Lowering rules that branch on an operand's type were
    written this way. jaxlib **0.9.0** ships bindings without these methods: the call
    fails with ``AttributeError: type object 'RankedTensorType' has no attribute
    'isinstance'`` while lowering.

Replacement
    Python's own test, ``isinstance(x.type, ir.RankedTensorType)``: the bindings return
    every builtin type and attribute as an instance of its concrete class (``tensor<2xf32>``
    is a ``RankedTensorType``, itself a ``ShapedType``), which the static method tested by
    type id. Over 17 builtin types and 16 attributes, each tested against every class of
    the module, the two answers agree (``X.isinstance`` on jax 0.7.2 against
    ``isinstance`` on 0.4.20, 0.4.28, 0.7.2, 0.9.0 and 0.10.2; the recording is
    ``testdata/rules/mlir-isinstance/static_isinstance_jax_0_7_2.json``) except in three
    cases, which the rewrite accounts for:

    * ``ir.IntegerAttr.isinstance`` also held for ``BoolAttr`` (an ``i1`` integer
      attribute), a class of its own in Python: it becomes ``isinstance(a, (ir.IntegerAttr,
      ir.BoolAttr))``;
    * ``ir.SymbolRefAttr.isinstance`` also held for ``FlatSymbolRefAttr``: ``isinstance(a,
      (ir.SymbolRefAttr, ir.FlatSymbolRefAttr))``;
    * a ``dense_resource`` attribute comes back as a plain ``ir.Attribute``, so
      ``ir.DenseResourceElementsAttr.isinstance`` has no ``isinstance`` equivalent: manual.

    An explicit cast to a base class (``ir.Type(t)``, ``ir.ShapedType(t)``) gives an
    object of that base class, not of the concrete one; such an argument, also through a
    name bound to it once, is tested as ``isinstance(ir.ShapedType(t).maybe_downcast(),
    ...)``, which restores the concrete class (``maybe_downcast`` exists on every release
    the rule targets). Values (``ir.OpResult``, ``ir.BlockArgument``) are handed out
    as their concrete class only from jax 0.10.0 on (0.9.0 returns plain ``ir.Value``
    operands), so those sites are rewritten for a target of 0.10.0 or later, reported
    for a 0.9 target, and left alone below (where the method still works). Affine expressions and dialect classes (``hlo.TokenType``
    still has ``isinstance`` and is not downcast) are not touched.

    The method used as a value (``filter(ir.F32Type.isinstance, types)``) is reported:
    write ``lambda t: isinstance(t, ir.F32Type)`` there. A site inside a compatibility
    guard is left alone; so is every site for a ``--target-jax`` below 0.4.20 (the first
    release checked to downcast).

What the kernel receives afterwards
    Unchanged: only which branch of the lowering rule runs is decided here, and it is
    decided the same way.

Safety
    Safe: the same answer for every object the bindings return on the target (see above).

Before::

    if ir.RankedTensorType.isinstance(qubit_idx.type):
        base = ir.RankedTensorType(qubit_idx.type).element_type
    is_int = ir.IntegerAttr.isinstance(attr)

After::

    if isinstance(qubit_idx.type, ir.RankedTensorType):
        base = ir.RankedTensorType(qubit_idx.type).element_type
    is_int = isinstance(attr, (ir.IntegerAttr, ir.BoolAttr))
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from codemods.rule import Rule, Safety
from codemods.rules._shared import compatibility_guard, parent

#: Where jax and jaxlib expose the MLIR bindings' ``ir`` module.
IR_MODULES = ("jaxlib.mlir.ir", "jax._src.lib.mlir.ir", "jax.interpreters.mlir.ir", "jax._src.interpreters.mlir.ir")
#: The builtin type and attribute classes that had a static ``isinstance`` (jaxlib 0.8).
TYPES = frozenset({
    "BF16Type", "ComplexType", "F16Type", "F32Type", "F64Type", "Float4E2M1FNType", "Float6E2M3FNType",
    "Float6E3M2FNType", "Float8E3M4Type", "Float8E4M3B11FNUZType", "Float8E4M3FNType", "Float8E4M3FNUZType",
    "Float8E4M3Type", "Float8E5M2FNUZType", "Float8E5M2Type", "Float8E8M0FNUType", "FloatTF32Type", "FloatType",
    "FunctionType", "IndexType", "IntegerType", "MemRefType", "NoneType", "OpaqueType", "RankedTensorType",
    "ShapedType", "TupleType", "UnrankedMemRefType", "UnrankedTensorType", "VectorType",
})
ATTRIBUTES = frozenset({
    "AffineMapAttr", "ArrayAttr", "BoolAttr", "DenseBoolArrayAttr", "DenseElementsAttr", "DenseF32ArrayAttr",
    "DenseF64ArrayAttr", "DenseFPElementsAttr", "DenseI16ArrayAttr", "DenseI32ArrayAttr", "DenseI64ArrayAttr",
    "DenseI8ArrayAttr", "DenseIntElementsAttr", "DictAttr", "FlatSymbolRefAttr", "FloatAttr", "IntegerAttr",
    "IntegerSetAttr", "OpaqueAttr", "StridedLayoutAttr", "StringAttr", "SymbolRefAttr", "TypeAttr", "UnitAttr",
})
#: Classes whose static test also held for another Python class.
ALSO = {"IntegerAttr": "BoolAttr", "SymbolRefAttr": "FlatSymbolRefAttr"}
VALUES = frozenset({"OpResult", "BlockArgument"})
#: Base classes a cast may produce an object of (``ir.ShapedType(t)``), not the concrete one.
BASES = frozenset({"Type", "Attribute", "ShapedType", "FloatType", "DenseElementsAttr", "Value"})
NO_EQUIVALENT = {"DenseResourceElementsAttr": "a dense_resource attribute comes back as a plain ir.Attribute, which "
                 "isinstance cannot tell apart: compare `a.typeid` with the class's, or test the attribute's text"}
REMOVED = "jaxlib 0.9.0"
REMOVED_IN = (0, 9, 0)
#: The first releases checked to hand out types and attributes, and values, as their
#: concrete classes.
TYPES_SINCE = (0, 4, 20)
VALUES_SINCE = (0, 10, 0)
KERNEL = "unchanged (only the lowering rule's branch is decided here, the same way)"
#: Every class whose static method the rule rewrites or reports.
HANDLED = TYPES | ATTRIBUTES | VALUES | frozenset(NO_EQUIVALENT)


class MlirIsinstance(Rule):
    __doc__ = __doc__
    name = "mlir-isinstance"
    summary = "Rewrite ir.<Class>.isinstance(x) as isinstance(x, ir.<Class>) (the static method is gone in jaxlib 0.9.0)."
    triggers = (b".isinstance",)
    statement_scoped = True

    def _method(self, node: cst.Attribute) -> Optional[str]:
        """The class name when ``node`` is ``<ir module>.<Class>.isinstance``."""
        if node.attr.value != "isinstance":
            return None
        qualified = self.ctx.qualified_name(node) or ""
        owner, _, _ = qualified.rpartition(".")
        module, _, cls = owner.rpartition(".")
        if module not in IR_MODULES:
            return None
        return cls

    def visit_Attribute(self, node: cst.Attribute) -> None:
        cls = self._method(node)
        if cls not in HANDLED or compatibility_guard(self.ctx, node) is not None:
            return
        target = tuple(self.ctx.options.target_jax)
        if target < (VALUES_SINCE if cls in VALUES else TYPES_SINCE):
            if cls in VALUES and target >= REMOVED_IN:
                self.report(node, Safety.MANUAL, f"ir.{cls}.isinstance was removed in {REMOVED}, and jax 0.9 hands out "
                            "operands as plain ir.Value: test `v.owner` or compare types instead (from jax 0.10.0 on "
                            f"`isinstance(v, ir.{cls})` works)")
            return
        call = parent(self.ctx, node)
        called = isinstance(call, cst.Call) and call.func is node
        if cls in NO_EQUIVALENT:
            self.report(node, Safety.MANUAL, f"ir.{cls}.isinstance was removed in {REMOVED}; {NO_EQUIVALENT[cls]}")
            return
        spelt = self.ctx.module.code_for_node(node.value)
        if not called:
            self.report(node, Safety.MANUAL, f"ir.{cls}.isinstance was removed in {REMOVED} and is used here as a value: "
                        f"write `lambda x: isinstance(x, {spelt})`")
            return
        args = call.args
        if len(args) != 1 or args[0].keyword is not None or args[0].star:
            self.report(call, Safety.MANUAL, f"ir.{cls}.isinstance was removed in {REMOVED}; it took one object: "
                        f"write `isinstance(x, {spelt})`")
            return
        classes: cst.BaseExpression = node.value
        if cls in ALSO:
            other = self._sibling(node.value, ALSO[cls])
            if other is None:
                self.report(call, Safety.MANUAL, f"ir.{cls}.isinstance was removed in {REMOVED}; it also held for "
                            f"{ALSO[cls]}: write `isinstance(x, ({spelt}, <ir>.{ALSO[cls]}))`")
                return
            classes = cst.Tuple([cst.Element(node.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                 cst.Element(other)])
        downcast = self._base_cast(args[0].value)
        also = f" (or {ALSO[cls]}, which the static test counted in)" if cls in ALSO else ""
        note = "; the argument is cast to a base class, so it is downcast first" if downcast else ""

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            if not isinstance(updated, cst.Call):
                return updated
            value = updated.args[0].value
            if downcast:
                value = cst.Call(func=cst.Attribute(value=value, attr=cst.Name("maybe_downcast")))
            return cst.Call(func=cst.Name("isinstance"), args=[
                cst.Arg(value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Arg(classes)])

        self.report(call, Safety.SAFE, f"ir.{cls}.isinstance was removed in {REMOVED}: Python's isinstance gives the "
                    f"same answer{also}, the bindings returning each object as its concrete class{note}", edit,
                    kernel_receives=KERNEL)

    def _sibling(self, owner: cst.BaseExpression, name: str) -> Optional[cst.BaseExpression]:
        """``ir.BoolAttr`` spelt the way ``owner`` (``ir.IntegerAttr``) reaches the module."""
        if isinstance(owner, cst.Attribute):
            return owner.with_changes(attr=cst.Name(name))
        qualified = self.ctx.qualified_name(owner) or ""
        module = qualified.rpartition(".")[0]
        if module not in IR_MODULES:
            return None
        return cst.parse_expression(self.ctx.name_for(f"{module}.{name}", owner))

    def _base_cast(self, value: cst.BaseExpression) -> bool:
        """``ir.Type(t)``/``ir.ShapedType(t)`` (also through a name bound to it once): an
        object of the class cast to, which may be a base of the concrete one."""
        if isinstance(value, cst.Name):
            bound = self.ctx.value_bound_once(value)
            if bound is not None:
                value = bound
        if not isinstance(value, cst.Call) or len(value.args) != 1:
            return False
        module, _, cls = (self.ctx.qualified_name(value.func) or "").rpartition(".")
        return module in IR_MODULES and cls in BASES
