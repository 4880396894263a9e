"""``stablehlo-custom-call-op``: build ``CustomCallOp`` with MLIR attributes, in StableHLO.

Legacy forms
    * ``hlo.CustomCallOp(..., backend_config="...", api_version=2)``: Python values for
      attributes. jax 0.4.30 converted a ``str``/``bytes`` backend_config; from 0.4.35 on
      the op builder rejects it: ``TypeError: Invalid attribute value for the key
      "backend_config" when attempting to create the operation "stablehlo.custom_call"
      (std::bad_cast)``. A Python ``int`` api_version was never converted (0.4.28 and
      0.4.30 raise ``RuntimeError: Invalid attribute value for the key "api_version"``,
      later releases the bad_cast), so such an op never lowered on any release.
    * ``from jax.interpreters.mlir import hlo`` (and ``mlir.hlo.X``), **removed in jax
      0.6.0**: ``ImportError: cannot import name 'hlo' from 'jax.interpreters.mlir'``.
    * ``mhlo.CustomCallOp`` (``jaxlib.mlir.dialects.mhlo``): still lowers, but
      ``jax.export``'s custom-call safety check only inspects ``stablehlo.custom_call``, so
      an MHLO custom call slips past it unnoticed.

Replacement
    * ``backend_config=`` a ``str``/``bytes`` value (literal, f-string, ``.encode()``,
      ``json.dumps(...)``, or a name bound once to one) -> ``ir.StringAttr.get(value)``;
      ``api_version=<int>`` -> ``mlir.i32_attr(<int>)``. Values that are already MLIR
      attributes are left alone; a value of unknown type is reported as manual.
    * ``from jax.interpreters.mlir import hlo`` -> ``from jax.extend.mlir.dialects import
      stablehlo as hlo`` (the same op classes; public since before jax 0.6.0), and
      ``mlir.hlo`` -> that module.
    * ``mhlo.CustomCallOp(...)`` -> ``stablehlo.CustomCallOp(...)`` (same arguments;
      ``custom_call_schedule=``, which StableHLO lacks, makes the site manual). The op
      verifies its attributes' dialect, so ``mhlo.OutputOperandAlias`` (operand aliases)
      moves with it to ``stablehlo.OutputOperandAlias`` (the same fields); a module that
      builds any other MHLO attribute, or keeps another ``mhlo.CustomCallOp`` (guarded,
      scheduled) beside the aliases, keeps its ops as they are, reported as manual.
    * ``operands_=`` (the keyword of the oldest generated op bindings) -> ``inputs=``, the
      name every jaxlib since (0.4.28 included) gives the operands of both ops; the old
      keyword raises ``TypeError: ... unexpected keyword argument 'operands_'``.
    Sites are left alone for a ``--target-jax`` where the legacy form still works (below
    0.4.35 for a ``str``/``bytes`` backend_config, below 0.6.0 for ``mlir.hlo``); an
    ``int`` api_version is wrapped for every target, since none accepted it.

What the kernel receives afterwards
    Unchanged: the same ``backend_config`` bytes and ``api_version``; the op is a
    ``stablehlo.custom_call``, which XLA compiles exactly like the ``mhlo`` one. An op with
    an ``int`` api_version has no earlier lowering to compare with: it receives the
    api_version written at the site, as the author meant (``make test-compat`` holds it
    to that declared value).

Before::

    from jax.interpreters.mlir import hlo, ir
    op = hlo.CustomCallOp([out_type], [x], call_target_name="my_target",
                          backend_config=opaque, api_version=2)

After::

    from jax.interpreters.mlir import ir
    from jax.extend.mlir.dialects import stablehlo as hlo
    op = hlo.CustomCallOp([out_type], [x], call_target_name="my_target",
                          backend_config=ir.StringAttr.get(opaque), api_version=mlir.i32_attr(2))
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods import walk
from codemods.rule import Rule, Safety
from codemods.rules._shared import compatibility_guard, imported_aliases, jax_fallback_guard, keyword, member_spelling, short

PUBLIC_HLO = "jax.interpreters.mlir.hlo"
STABLEHLO_DIALECTS = frozenset(
    {PUBLIC_HLO, "jax._src.lib.mlir.dialects.hlo", "jaxlib.mlir.dialects.stablehlo",
     "jax.extend.mlir.dialects.stablehlo", "jaxlib.mlir.dialects.hlo"}
)
MHLO_DIALECTS = frozenset({"jaxlib.mlir.dialects.mhlo", "jax._src.lib.mlir.dialects.mhlo"})
#: MHLO attribute builders whose StableHLO namesakes take the same fields: moved with the op.
MHLO_ATTRIBUTES_MOVED = frozenset({"OutputOperandAlias"})
PYTHON_VALUES_REJECTED_IN = (0, 4, 35)
HLO_REMOVED_IN = (0, 6, 0)
IR_MODULES = ("jaxlib.mlir.ir", "jax.interpreters.mlir.ir", "jax._src.lib.mlir.ir", "jax.extend.mlir.ir", "jax._src.interpreters.mlir.ir")
MLIR_MODULES = ("jax.interpreters.mlir", "jax._src.interpreters.mlir")
#: Calls whose result is already ``str``/``bytes``.
STRING_CALLS = frozenset({"json.dumps", "builtins.str", "builtins.bytes", "struct.pack", "pickle.dumps"})
STRING_METHODS = frozenset({"encode", "SerializeToString", "tobytes", "dumps", "format", "join", "decode", "hex"})


class StablehloCustomCallOp(Rule):
    __doc__ = __doc__
    name = "stablehlo-custom-call-op"
    summary = "Typed attributes for hlo.CustomCallOp, jax.interpreters.mlir.hlo -> stablehlo, mhlo.CustomCallOp -> stablehlo."
    triggers = (b"CustomCallOp", b"import hlo", b"hlo,", b", hlo", b".hlo")
    statement_scoped = True

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._mhlo_uses: Optional[tuple[list[cst.Call], list[cst.Attribute]]] = None
        self._attributes_reported = False

    # -- `from jax.interpreters.mlir import hlo` ------------------------------------------
    def visit_ImportFrom(self, node: cst.ImportFrom) -> Optional[bool]:
        if self.ctx.options.target_jax < HLO_REMOVED_IN:
            return False
        hlo = imported_aliases(node, "jax.interpreters.mlir", "hlo")
        if not hlo:
            return False
        if jax_fallback_guard(self.ctx, node) is not None:
            # A guard that falls back to another hlo import already works; one whose
            # except clause only sets ``hlo = None`` does not (the import fails on 0.6.0+).
            return False
        alias = hlo[0]
        local = get_full_name_for_node(alias.asname.name) if alias.asname else "hlo"

        def edit(updated: cst.CSTNode):
            assert isinstance(updated, cst.ImportFrom) and not isinstance(updated.names, cst.ImportStar)
            if len(updated.names) == 1:
                return cst.ImportFrom(
                    module=cst.parse_expression("jax.extend.mlir.dialects"),
                    names=[cst.ImportAlias(cst.Name("stablehlo"), asname=cst.AsName(cst.Name(local)))],
                )
            kept = [a for a in updated.names if get_full_name_for_node(a.name) != "hlo"]
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            self.ctx.add_import("jax.extend.mlir.dialects", "stablehlo", local)
            return updated.with_changes(names=kept)

        self.report(
            node,
            Safety.SAFE,
            "jax.interpreters.mlir.hlo was removed in jax 0.6.0; the same dialect module is jax.extend.mlir.dialects.stablehlo",
            edit,
            kernel_receives="unchanged (the same op classes)",
        )
        return False

    # -- `mlir.hlo.X` ----------------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "hlo" or self.ctx.options.target_jax < HLO_REMOVED_IN:
            return
        if self.ctx.qualified_name(node) != PUBLIC_HLO or compatibility_guard(self.ctx, node) is not None:
            return
        self.report(
            node,
            Safety.SAFE,
            "jax.interpreters.mlir.hlo was removed in jax 0.6.0; using jax.extend.mlir.dialects.stablehlo",
            lambda _updated: cst.parse_expression(self.stablehlo()),
            kernel_receives="unchanged (the same op classes)",
        )

    # -- CustomCallOp(...) -----------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "CustomCallOp"):
            return
        dialect = self.ctx.qualified_name(func.value)
        if dialect not in STABLEHLO_DIALECTS and dialect not in MHLO_DIALECTS:
            return
        if compatibility_guard(self.ctx, node) is not None:
            return
        if self.ctx.options.target_jax >= PYTHON_VALUES_REJECTED_IN:
            self.check_config(node)
        self.check_api_version(node)
        self.check_operands_keyword(node)
        if dialect in MHLO_DIALECTS:
            self.to_stablehlo(node, func)

    def check_config(self, node: cst.Call) -> None:
        arg = keyword(node, "backend_config")
        if arg is None:
            return
        kind = self.classify(arg.value)
        if kind == "attr":
            return
        if kind == "dict":
            self.report(
                arg.value,
                Safety.MANUAL,
                "a Python dict backend_config is rejected by CustomCallOp (std::bad_cast): build "
                "`ir.DictAttr.get({name: mlir.ir_attribute(value), ...})` and pass `api_version=mlir.i32_attr(4)` (typed FFI)",
            )
            return
        if kind == "unknown":
            self.report(
                arg.value,
                Safety.MANUAL,
                f"backend_config `{short(self.ctx.module.code_for_node(arg.value))}` of unknown type: CustomCallOp needs an "
                "MLIR attribute: `ir.StringAttr.get(value)` for str/bytes (api_version 1-3), `ir.DictAttr` for typed FFI",
            )
            return
        self.wrap(
            arg.value,
            lambda: f"{self.ir()}.StringAttr.get",
            "CustomCallOp rejects a Python str/bytes backend_config since jax 0.4.35; wrapped in ir.StringAttr.get",
            kernel_receives="unchanged (the same backend_config bytes)",
        )

    def check_api_version(self, node: cst.Call) -> None:
        arg = keyword(node, "api_version")
        if arg is None or not isinstance(arg.value, cst.Integer):
            return
        self.wrap(
            arg.value,
            lambda: f"{self.mlir()}.i32_attr",
            "CustomCallOp never accepted a Python int api_version (no jax release converted it); wrapped in mlir.i32_attr",
            kernel_receives="unchanged (the same api_version)",
        )

    def check_operands_keyword(self, node: cst.Call) -> None:
        """``operands_=``: the keyword of the oldest generated bindings; every jaxlib since
        (0.4.28 included) names the operands ``inputs``."""
        arg = keyword(node, "operands_")
        if arg is None or arg.keyword is None:
            return
        self.report(
            arg.keyword,
            Safety.SAFE,
            "CustomCallOp takes its operands as `inputs=`; `operands_=` raises TypeError (unexpected keyword argument)",
            lambda updated: updated.with_changes(value="inputs"),
            kernel_receives="unchanged (the same operands)",
        )

    def wrap(self, value: cst.BaseExpression, builder: Callable[[], str], message: str, kernel_receives: str) -> None:
        """Report ``value`` as safely passed through ``builder``: the MLIR attribute
        constructor, spelled (and imported) only when the edit is applied."""

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            return cst.Call(cst.parse_expression(builder()), [cst.Arg(updated)])

        self.report(value, Safety.SAFE, message, edit, kernel_receives=kernel_receives)

    def to_stablehlo(self, node: cst.Call, func: cst.Attribute) -> None:
        if keyword(node, "custom_call_schedule") is not None:
            self.report(
                node,
                Safety.MANUAL,
                "mhlo.CustomCallOp with custom_call_schedule=, which stablehlo.CustomCallOp lacks: drop the schedule "
                "and build stablehlo.CustomCallOp (jax.export checks only stablehlo custom calls)",
            )
            return
        ops, attributes = self.mhlo_uses()
        others = sorted({a.attr.value for a in attributes if a.attr.value not in MHLO_ATTRIBUTES_MOVED})
        kept = [op for op in ops if op is not node and not self.converts(op)]
        if others or (attributes and kept):
            why = (f"the module also builds MHLO attributes (`mhlo.{'`, `mhlo.'.join(others)}`)" if others else
                   "the module's other mhlo.CustomCallOp, which stays, uses the same MHLO attributes")
            self.report(
                func,
                Safety.MANUAL,
                f"mhlo.CustomCallOp left as it is: {why}, which a stablehlo.CustomCallOp rejects; build it as "
                "stablehlo.CustomCallOp with the stablehlo attributes (jax.export checks only stablehlo custom calls)",
            )
            return
        link = ("stablehlo-custom-call-op", "mhlo attributes") if attributes else None
        if attributes and not self._attributes_reported:
            self._attributes_reported = True
            for attribute in attributes:
                self.report(
                    attribute,
                    Safety.SAFE,
                    f"mhlo.{attribute.attr.value} -> stablehlo.{attribute.attr.value}: an attribute of the "
                    "mhlo.CustomCallOp moved to stablehlo with it (the same fields)",
                    self._to_stablehlo_edit(attribute),
                    kernel_receives="unchanged (the same attribute values)",
                    link=link,
                )
        self.report(
            func,
            Safety.SAFE,
            "mhlo.CustomCallOp -> stablehlo.CustomCallOp: jax.export's custom-call safety check sees only stablehlo ops",
            self._to_stablehlo_edit(func),
            kernel_receives="unchanged (the same target, operands and attributes)",
            link=link,
        )

    def converts(self, op: cst.Call) -> bool:
        """Whether ``to_stablehlo`` would be asked to move this mhlo.CustomCallOp."""
        return keyword(op, "custom_call_schedule") is None and compatibility_guard(self.ctx, op) is None

    def mhlo_uses(self) -> tuple[list[cst.Call], list[cst.Attribute]]:
        """The module's ``mhlo.CustomCallOp(...)`` calls and its other ``mhlo.<name>`` reads
        that are no op class (attribute builders such as ``mhlo.OutputOperandAlias``)."""
        if self._mhlo_uses is None:
            ops: list[cst.Call] = []
            attributes: list[cst.Attribute] = []
            qualified = self.ctx.qualified_name

            class _Uses(cst.CSTVisitor):
                def visit_Call(self, call: cst.Call) -> None:
                    func = call.func
                    if isinstance(func, cst.Attribute) and func.attr.value == "CustomCallOp" \
                            and qualified(func.value) in MHLO_DIALECTS:
                        ops.append(call)

                def visit_Attribute(self, attr: cst.Attribute) -> None:
                    name = attr.attr.value
                    if not name.endswith("Op") and name[:1].isupper() and qualified(attr.value) in MHLO_DIALECTS:
                        attributes.append(attr)

            walk.read(self.ctx.module, _Uses())
            self._mhlo_uses = (ops, attributes)
        return self._mhlo_uses

    def _to_stablehlo_edit(self, attribute: cst.Attribute):
        """``mhlo.X`` -> ``stablehlo.X``, the mhlo import going once nothing uses it."""
        head = (get_full_name_for_node(attribute.value) or "").split(".")[0]

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            for binding in self.ctx.names.imports:
                if binding.local == head and binding.from_module is not None:
                    obj = binding.qualified.rsplit(".", 1)[1]
                    self.ctx.remove_import_if_unused(binding.from_module, obj, None if obj == head else head)
            return cst.Attribute(cst.parse_expression(self.stablehlo()), cst.Name(attribute.attr.value))

        return edit

    # -- helpers ---------------------------------------------------------------------------
    def classify(self, value: cst.BaseExpression, depth: int = 0) -> str:
        if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return "string"
        if isinstance(value, cst.Dict):
            return "dict"
        if isinstance(value, cst.Name):
            if value.value == "None":
                return "attr"  # the builder's own default
            bound = self.ctx.value_bound_once(value) if depth < 4 else None
            return "unknown" if bound is None else self.classify(bound, depth + 1)
        if isinstance(value, cst.Call):
            name = self.ctx.qualified_name(value.func) or get_full_name_for_node(value.func) or ""
            last = name.rsplit(".", 1)[-1]
            parts = name.split(".")
            if len(parts) >= 2 and parts[-2].endswith("Attr") and last.startswith("get"):
                return "attr"
            if last in ("ir_attribute", "i32_attr", "i64_attr", "string_attr", "dense_int_elements", "dense_int_array"):
                return "attr"
            if name in STRING_CALLS or (isinstance(value.func, cst.Name) and value.func.value in ("str", "bytes")):
                return "string"
            if isinstance(value.func, cst.Attribute) and value.func.attr.value in STRING_METHODS:
                return "string"
        return "unknown"

    def bound_module(self, modules: tuple[str, ...]) -> Optional[str]:
        """The plain local name an import already gives one of ``modules``, tried in order."""
        for module in modules:
            spelt = self.ctx.names.binding_for(module)
            if spelt is not None and "." not in spelt:
                return spelt
        return None

    def ir(self) -> str:
        spelt = self.bound_module(IR_MODULES)
        return spelt if spelt is not None else member_spelling(self.ctx, "jax.interpreters.mlir", "ir")

    def mlir(self) -> str:
        spelt = self.bound_module(MLIR_MODULES)
        return spelt if spelt is not None else member_spelling(self.ctx, "jax.interpreters", "mlir")

    def stablehlo(self) -> str:
        spelt = self.bound_module(("jax.extend.mlir.dialects.stablehlo", "jaxlib.mlir.dialects.stablehlo", "jax._src.lib.mlir.dialects.hlo"))
        if spelt is not None:
            return spelt
        moved = PUBLIC_HLO if self.ctx.options.target_jax >= HLO_REMOVED_IN else None
        return member_spelling(self.ctx, "jax.extend.mlir.dialects", "stablehlo", moved_from=moved)
