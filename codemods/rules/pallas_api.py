"""``pallas-api``: Pallas kernel calls whose form jax removed: ``pl.load``/``pl.store``,
``compiler_params`` dictionaries, the old ``BlockSpec`` argument order, ``Unblocked``.

Pallas kernels are custom calls too (``pallas_call`` lowers to a Mosaic ``tpu_custom_call``
or a Triton custom call), and their API moved faster than the rest of jax. The names
that only moved (``pltpu.TPUMemorySpace`` -> ``MemorySpace``, ``pltpu.ANY`` -> ``pl.ANY``,
``pl.atomic_add`` -> ``jax.experimental.pallas.triton.atomic_add``...) are in
``removed-jax-api``'s table; this rule rewrites the call forms. Facts from the Pallas
changelog, each checked in the sources of jax 0.4.28/0.4.30/0.6.2/0.8.0 and 0.10.2.

``pl.load`` / ``pl.store`` (deprecated in jax 0.7.1, removed by 0.10.0)
    ``pl.load(ref, idx)`` was documented as "the same semantics as ``ref[idx]``" when
    neither ``mask`` nor ``other`` is given, and ``pl.store(ref, idx, val)`` as
    ``ref[idx] = val``: those become indexing, on every backend (safe). A literal index
    tuple is spread into the subscript (``ref[i, pl.ds(0, 8)]``). The Triton-only
    arguments (``mask``, ``other``, ``eviction_policy``, ``cache_modifier``, ``volatile``)
    keep the call, on the Triton module: ``pltriton.load(ref.at[idx], mask=m,
    other=0.0)`` (jax 0.10.2's ``load(ref, *, mask, other, ...)`` calls the very
    primitive helper ``pl.load`` was, with the index carried by ``ref.at[idx]``; safe).
    A ``pl.store`` used as a value, and ``pl.swap`` (jax 0.10.0 has no public swap with an
    index), are manual.

``compiler_params`` dictionaries (removed in jax 0.6.1)
    ``pallas_call(..., compiler_params=dict(mosaic=dict(dimension_semantics=...)))`` (or
    ``{"mosaic": {...}}``, or the older ``mosaic_params`` key) raises ``ValueError:
    Unknown backend in compiler_params: mosaic`` from 0.6.1 on; it becomes
    ``pltpu.CompilerParams(dimension_semantics=...)``, each key a field of the same name
    (``dimension_semantics``, ``allow_input_fusion``, ``vmem_limit_bytes``,
    ``collective_id``, ``flags``, ``internal_scratch_in_bytes``, ``serialization_format``,
    ``has_side_effects``). ``cost_estimate``, which Mosaic read from that dictionary in
    jax 0.4.x, is ``pallas_call``'s own ``cost_estimate=`` now and moves there. The
    Triton form ``dict(triton=dict(num_warps=4, num_stages=2))`` (or the flat
    ``dict(num_warps=4, num_stages=2)``, which jax 0.4.x's Triton lowering also read)
    becomes ``pltriton.CompilerParams(num_warps=4, num_stages=2)``; fields left out get
    the same defaults (4 warps, 3 stages on CUDA, 1 on ROCm). Any other key, a dictionary
    given by a name, or one naming two backends is manual. Emitted for a target of jax
    0.6.2 on (the first with these class names).

``pl.BlockSpec(index_map, block_shape)`` (old order removed in jax 0.4.34)
    jax 0.4.31 swapped the arguments (``block_shape`` first) and accepted both orders
    while the first was callable; 0.4.34 dropped the old one. A call whose first argument
    is a ``lambda`` or a function defined in the module and whose second is not callable
    has them swapped (safe); emitted for a target of 0.4.31 on.

``indexing_mode=pl.Unblocked()`` (removed in jax 0.6.1)
    "pass a ``pl.Element(size)`` into ``block_shape`` for each entry that needs unblocked
    indexing": with a literal ``block_shape``, each int entry ``n`` becomes
    ``pl.Element(n)`` (``None``, a squeezed dimension, stays: its block index is its
    element index); ``Unblocked(padding=((lo, hi), ...))`` gives ``pl.Element(n, (lo,
    hi))``. ``indexing_mode=pl.Blocked()`` (the default) is dropped. A ``block_shape``
    that is not a literal stays manual. Emitted for a target of 0.6.2 on.

What the kernel receives afterwards
    The same kernel: these are the spellings the removal messages name; nothing about
    the custom call it lowers to changes.

Before::

    def kernel(x_ref, o_ref):
        x = pl.load(x_ref, (pl.dslice(0, 8), slice(None)))
        pl.store(o_ref, (pl.dslice(0, 8), slice(None)), x * 2)

    pl.pallas_call(kernel, out_shape=out,
                   in_specs=[pl.BlockSpec(lambda i: (i, 0), (8, 128))],
                   compiler_params=dict(mosaic=dict(dimension_semantics=("parallel",))))

After::

    def kernel(x_ref, o_ref):
        x = x_ref[pl.dslice(0, 8), slice(None)]
        o_ref[pl.dslice(0, 8), slice(None)] = x * 2

    pl.pallas_call(kernel, out_shape=out,
                   in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
                   compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods.rule import Rule, Safety
from codemods.rules._shared import (
    SPACED_COMMA,
    TIGHT_EQUAL,
    bind_arguments,
    compatibility_guard,
    head_name,
    keyword,
    parent,
    positional,
)

PALLAS = "jax.experimental.pallas"
TPU = f"{PALLAS}.tpu"
TRITON = f"{PALLAS}.triton"

LOAD_STORE_SINCE = (0, 7, 1)
PARAMS_SINCE = (0, 6, 2)
BLOCKSPEC_ORDER_SINCE = (0, 4, 31)
ELEMENT_SINCE = (0, 6, 2)

#: Arguments only Triton's load/store take (``pl.load(ref, idx, *, mask, other, ...)``).
TRITON_LOAD_KEYWORDS = ("mask", "other", "cache_modifier", "eviction_policy", "volatile")
TRITON_STORE_KEYWORDS = ("mask", "eviction_policy")

#: Keys jax 0.4.x's Mosaic lowering read from ``compiler_params["mosaic"]`` that are
#: fields of the same name of ``pltpu.CompilerParams``.
MOSAIC_FIELDS = ("dimension_semantics", "allow_input_fusion", "vmem_limit_bytes", "collective_id", "flags",
                 "internal_scratch_in_bytes", "serialization_format", "has_side_effects")
TRITON_FIELDS = ("num_warps", "num_stages")


def _dict_items(node: cst.BaseExpression) -> Optional[list[tuple[str, cst.BaseExpression]]]:
    """``dict(a=1)`` / ``{"a": 1}`` as (key, value) pairs; None for anything else."""
    if isinstance(node, cst.Dict):
        items = []
        for element in node.elements:
            if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
                return None
            items.append((element.key.evaluated_value, element.value))
        return items
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict":
        if any(a.keyword is None or a.star for a in node.args):
            return None
        return [(a.keyword.value, a.value) for a in node.args]
    return None


def _index(value: cst.BaseExpression, tidy: bool) -> cst.BaseSlice:
    """``slice(None)`` as ``:`` (what it is in a subscript) when ``tidy``."""
    if tidy and isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "slice" \
            and len(value.args) == 1 and isinstance(value.args[0].value, cst.Name) \
            and value.args[0].value.value == "None" and value.args[0].keyword is None:
        return cst.Slice(lower=None, upper=None)
    return cst.Index(value)


def _subscript(ref: cst.BaseExpression, index: cst.BaseExpression, tidy: bool = False) -> cst.Subscript:
    """``ref[index]``; a literal tuple index is spread into the subscript, keeping its
    layout (``(a, b)`` gives ``ref[a, b]``; one written over several lines stays so), and
    with ``tidy`` (the builtin ``slice`` not rebound) ``slice(None)`` is written ``:``."""
    if not isinstance(index, cst.Tuple) or not index.elements or any(
            isinstance(e, cst.StarredElement) for e in index.elements):
        return cst.Subscript(value=ref, slice=[cst.SubscriptElement(_index(index, tidy))])
    elements = list(index.elements)
    if len(elements) == 1:
        return cst.Subscript(value=ref, slice=[cst.SubscriptElement(_index(elements[0].value, tidy))])
    last = elements[-1].comma
    if not (index.rpar and "\n" in _code(index.rpar[-1])):
        last = cst.MaybeSentinel.DEFAULT  # ``(a, b,)`` on one line: no trailing comma
    items = [cst.SubscriptElement(_index(e.value, tidy), comma=e.comma if i < len(elements) - 1 else last)
             for i, e in enumerate(elements)]
    lbracket, rbracket = cst.LeftSquareBracket(), cst.RightSquareBracket()
    if index.lpar and index.rpar:
        lbracket = cst.LeftSquareBracket(whitespace_after=index.lpar[0].whitespace_after)
        rbracket = cst.RightSquareBracket(whitespace_before=index.rpar[-1].whitespace_before)
    return cst.Subscript(value=ref, slice=items, lbracket=lbracket, rbracket=rbracket)


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _at(ref: cst.BaseExpression, index: cst.BaseExpression, tidy: bool) -> cst.Subscript:
    """``ref.at[index]``."""
    return _subscript(cst.Attribute(value=ref, attr=cst.Name("at")), index, tidy)


def _kwarg(name: str, value: cst.BaseExpression, last: bool) -> cst.Arg:
    return cst.Arg(value, keyword=cst.Name(name), equal=TIGHT_EQUAL, comma=cst.MaybeSentinel.DEFAULT if last else SPACED_COMMA)


def _drop_indexing_mode(updated: cst.Call) -> cst.Call:
    """The call without its ``indexing_mode=``; the argument before it takes its comma."""
    args = list(updated.args)
    at = next(i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == "indexing_mode")
    removed = args.pop(at)
    if at == len(args) and at > 0:
        args[at - 1] = args[at - 1].with_changes(comma=removed.comma)
    return updated.with_changes(args=args)


LOAD_PARAMS = ("x_ref_or_view", "idx")
STORE_PARAMS = ("x_ref_or_view", "idx", "val")


def _bind(call: cst.Call, params: tuple[str, ...]) -> Optional[dict[str, cst.Arg]]:
    """``load(ref, idx=..., mask=...)``'s arguments by parameter name, keywords after the
    bound parameters in call order; None unless every parameter is given once."""
    bound = bind_arguments(call, params, others=True)
    return bound if bound is not None and all(p in bound for p in params) else None


def _commas(args: list[cst.Arg], original: cst.Call) -> list[cst.Arg]:
    """``args`` (one fewer than the call had: the ref and its index became one) laid out
    as the call was: the i-th takes the comma the call's (i+1)-th argument had, so a call
    written one argument per line stays so."""
    slots = [a.comma for a in original.args][1:]
    return [a.with_changes(comma=slots[i] if i < len(slots) else cst.MaybeSentinel.DEFAULT) for i, a in enumerate(args)]


class PallasApi(Rule):
    __doc__ = __doc__
    name = "pallas-api"
    summary = ("Rewrite Pallas call forms jax removed: pl.load/pl.store, compiler_params dictionaries, "
               "BlockSpec(index_map, block_shape), indexing_mode=pl.Unblocked().")
    triggers = (b"pallas",)
    statement_scoped = True

    # -- spelling ----------------------------------------------------------------
    def _module(self, module: str, asname: str) -> str:
        """A local name for ``module`` (``pltpu``/``pltriton``), importing it once."""
        # ``pallas.gpu`` is the Triton module's old name, which removed-jax-api moves.
        names = (module, f"{PALLAS}.gpu") if module == TRITON else (module,)
        for binding in self.ctx.names.imports:
            if binding.qualified in names and binding.top_level and not self.ctx.names._maybe_rebound(binding.local):
                return binding.local
        if self.ctx.names.is_bound(asname):
            asname = f"_ccm_{asname}"
        self.ctx.add_import(PALLAS, module.rsplit(".", 1)[1], asname)
        return asname

    def _tidy(self) -> bool:
        return not self.ctx.names.is_bound("slice")

    def _target(self, since: tuple[int, ...]) -> bool:
        return tuple(self.ctx.options.target_jax) >= since

    # -- calls ---------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.qualified_name(node.func)
        if not qualified or not qualified.startswith(PALLAS):
            if qualified == "functools.partial" and node.args and \
                    self.ctx.qualified_name(node.args[0].value) == f"{PALLAS}.pallas_call":
                self._compiler_params(node)
            return
        if compatibility_guard(self.ctx, node):
            return
        member = qualified[len(PALLAS) + 1:]
        if member == "load" and self._target(LOAD_STORE_SINCE):
            self._load(node)
        elif member == "store" and self._target(LOAD_STORE_SINCE):
            self._store(node)
        elif member == "swap" and self._target(LOAD_STORE_SINCE):
            self.report(node, Safety.MANUAL, "pl.swap was removed in jax 0.10.0 (deprecated in 0.8.1): read the old "
                        "value with `old = ref[idx]`, then store with `ref[idx] = val`")
        elif member == "pallas_call":
            self._compiler_params(node)
        elif member == "BlockSpec":
            self._blockspec(node)

    def _extras(self, call: cst.Call, member: str, params: tuple[str, ...], allowed: tuple[str, ...],
                guidance: str) -> Optional[list[str]]:
        """The Triton-only keywords of a ``pl.load``/``pl.store`` call; None (reported) when
        its arguments do not bind or name something else."""
        bound = _bind(call, params)
        if bound is None:
            self.report(call, Safety.MANUAL, f"pl.{member} was removed in jax 0.10.0 (deprecated in 0.7.1): use "
                        f"{guidance}")
            return None
        extra = [k for k in bound if k not in params]
        unknown = [k for k in extra if k not in allowed]
        if unknown:
            self.report(call, Safety.MANUAL, f"pl.{member} with {', '.join(unknown)}= (removed in jax 0.10.0) is not "
                        f"rewritten: use {guidance.split(', or ')[0]} or the Triton module's {member}")
            return None
        return extra

    def _triton(self, call: cst.Call, member: str, params: tuple[str, ...], extra: list[str]) -> None:
        """``pl.load(ref, idx, mask=...)`` -> ``pltriton.load(ref.at[idx], mask=...)`` (and
        ``store``, its value after the ref)."""
        def edit(updated: cst.Call) -> cst.CSTNode:
            module = self._module(TRITON, "pltriton")
            args = _bind(updated, params)
            ref = cst.Arg(_at(args["x_ref_or_view"].value, args["idx"].value, self._tidy()), comma=SPACED_COMMA)
            middle = [cst.Arg(args[p].value, comma=SPACED_COMMA) for p in params[2:]]
            rest = [a for k, a in args.items() if k not in params]
            return updated.with_changes(func=cst.parse_expression(f"{module}.{member}"),
                                        args=_commas([ref, *middle, *rest], updated))

        value = ", val" if member == "store" else ""
        self.report(call, Safety.SAFE, f"pl.{member} with {', '.join(extra)}= was removed in jax 0.10.0; those are "
                    f"Triton's: jax.experimental.pallas.triton.{member}(ref.at[idx]{value}, ...) calls the same "
                    f"{member}", edit, kernel_receives=f"unchanged (the same masked {member})")

    def _load(self, call: cst.Call) -> None:
        extra = self._extras(call, "load", LOAD_PARAMS, TRITON_LOAD_KEYWORDS, "`ref[idx]`, or "
                             "`jax.experimental.pallas.triton.load(ref.at[idx], mask=..., other=...)` on Triton")
        if extra:
            self._triton(call, "load", LOAD_PARAMS, extra)
        elif extra is not None:
            def edit(updated: cst.Call) -> cst.CSTNode:
                args = _bind(updated, LOAD_PARAMS)
                return _subscript(args["x_ref_or_view"].value, args["idx"].value, self._tidy())

            self.report(call, Safety.SAFE, "pl.load was removed in jax 0.10.0 (deprecated in 0.7.1); without mask or "
                        "other it was `ref[idx]`", edit, kernel_receives="unchanged (the same load)")

    def _store(self, call: cst.Call) -> None:
        extra = self._extras(call, "store", STORE_PARAMS, TRITON_STORE_KEYWORDS, "`ref[idx] = val`, or "
                             "`jax.experimental.pallas.triton.store(ref.at[idx], val, mask=...)` on Triton")
        statement = parent(self.ctx, call)
        if extra:
            self._triton(call, "store", STORE_PARAMS, extra)
            return
        if extra is None:
            return
        if not isinstance(statement, cst.Expr):
            self.report(call, Safety.MANUAL, "pl.store (removed in jax 0.10.0) is used as a value here; it returned "
                        "None: write `ref[idx] = val` as a statement")
            return

        def edit(updated: cst.Expr) -> cst.CSTNode:
            assert isinstance(updated.value, cst.Call)
            args = _bind(updated.value, STORE_PARAMS)
            target = _subscript(args["x_ref_or_view"].value, args["idx"].value, self._tidy())
            value = args["val"].value
            if "\n" in _code(value) and not value.lpar:
                # Spread over lines inside the call's parentheses: it keeps some of its own.
                value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            return cst.Assign(targets=[cst.AssignTarget(target)], value=value, semicolon=updated.semicolon)

        self.report(statement, Safety.SAFE, "pl.store was removed in jax 0.10.0 (deprecated in 0.7.1); without mask "
                    "it was `ref[idx] = val`", edit, kernel_receives="unchanged (the same store)")

    # -- compiler_params -------------------------------------------------------------
    def _compiler_params(self, call: cst.Call) -> None:
        arg = keyword(call, "compiler_params")
        if arg is None or not self._target(PARAMS_SINCE):
            return
        items = _dict_items(arg.value)
        if items is None:
            if isinstance(arg.value, cst.Dict) or (isinstance(arg.value, cst.Call)
                                                   and get_full_name_for_node(arg.value.func) == "dict"):
                self.report(arg, Safety.MANUAL, self._params_manual("its keys are not literal"))
            return
        keys = [k for k, _ in items]
        if len(items) == 1 and keys[0] in ("mosaic", "mosaic_params", "triton"):
            backend, inner = keys[0], _dict_items(items[0][1])
            if inner is None:
                self.report(arg, Safety.MANUAL, self._params_manual(f"its {backend!r} entry is not a literal dictionary"))
                return
        elif items and all(k in TRITON_FIELDS for k in keys):
            backend, inner = "triton", items
        else:
            self.report(arg, Safety.MANUAL, self._params_manual(f"keys {', '.join(map(repr, keys))} name no single backend"))
            return
        fields = TRITON_FIELDS if backend == "triton" else (*MOSAIC_FIELDS, "cost_estimate")
        unknown = [k for k, _ in inner if k not in fields]
        if unknown:
            self.report(arg, Safety.MANUAL, self._params_manual(f"{', '.join(map(repr, unknown))} is no field of the "
                                                               "backend's CompilerParams"))
            return
        cost = [v for k, v in inner if k == "cost_estimate"]
        if cost and keyword(call, "cost_estimate") is not None:
            self.report(arg, Safety.MANUAL, self._params_manual("it gives cost_estimate twice"))
            return
        module, asname = (TRITON, "pltriton") if backend == "triton" else (TPU, "pltpu")
        kept = [(k, v) for k, v in inner if k != "cost_estimate"]

        def edit(updated: cst.Call) -> cst.CSTNode:
            spelt = self._module(module, asname)
            new_params = cst.Call(func=cst.parse_expression(f"{spelt}.CompilerParams"),
                                  args=[_kwarg(k, v, i == len(kept) - 1) for i, (k, v) in enumerate(kept)])
            args = []
            for a in updated.args:
                if a.keyword is not None and a.keyword.value == "compiler_params":
                    comma = a.comma
                    a = a.with_changes(value=new_params, comma=comma if isinstance(comma, cst.Comma) else SPACED_COMMA)
                    if cost:
                        args.append(a)
                        a = cst.Arg(cost[0], keyword=cst.Name("cost_estimate"), equal=TIGHT_EQUAL, comma=comma)
                args.append(a)
            return updated.with_changes(args=args)

        what = "Triton's" if backend == "triton" else "Mosaic's"
        moved = "; cost_estimate moves to pallas_call's own keyword" if cost else ""
        self.report(call, Safety.SAFE, f"compiler_params as a dictionary was removed in jax 0.6.1: {what} parameters "
                    f"are {module}.CompilerParams, one field per key{moved}", edit,
                    kernel_receives="unchanged (the same compiler parameters)")

    @staticmethod
    def _params_manual(why: str) -> str:
        return (f"compiler_params as a dictionary was removed in jax 0.6.1 and this one is not rewritten ({why}): pass "
                "jax.experimental.pallas.tpu.CompilerParams(...) (Mosaic) or jax.experimental.pallas.triton."
                "CompilerParams(num_warps=..., num_stages=...) (Triton)")

    # -- BlockSpec -------------------------------------------------------------------
    def _callable(self, node: cst.BaseExpression) -> Optional[bool]:
        """True for a lambda or a function this module defines, False for what cannot be
        called (a literal shape, None), None when unknown."""
        if isinstance(node, cst.Lambda):
            return True
        if isinstance(node, (cst.Tuple, cst.List)) or (isinstance(node, cst.Name) and node.value == "None"):
            return False
        if isinstance(node, cst.Call) and self.ctx.qualified_name(node.func) == "functools.partial":
            return True
        if isinstance(node, cst.Name):
            for statement in self.ctx.module.body:
                if isinstance(statement, cst.FunctionDef) and statement.name.value == node.value:
                    return True
        return None

    def _blockspec(self, call: cst.Call) -> None:
        args = positional(call)
        if len(args) >= 2 and self._target(BLOCKSPEC_ORDER_SINCE) and not any(a.star for a in call.args) \
                and self._callable(args[0].value) is True and self._callable(args[1].value) is not True:
            def edit(updated: cst.Call) -> cst.CSTNode:
                first, second, *rest = updated.args
                return updated.with_changes(args=[first.with_changes(value=second.value),
                                                  second.with_changes(value=first.value), *rest])

            self.report(call, Safety.SAFE, "pl.BlockSpec(index_map, block_shape) was removed in jax 0.4.34: block_shape "
                        "comes first since 0.4.31", edit, kernel_receives="unchanged (the same blocks)")
            args = [args[1], args[0], *args[2:]]
        mode = keyword(call, "indexing_mode")
        if mode is None or not self._target(ELEMENT_SINCE):
            return
        self._indexing_mode(call, mode, args)

    def _indexing_mode(self, call: cst.Call, mode: cst.Arg, args: list[cst.Arg]) -> None:
        value = mode.value
        qualified = self.ctx.qualified_name(value.func if isinstance(value, cst.Call) else value)
        kind = (qualified or "").rsplit(".", 1)[-1]
        if kind in ("Blocked", "blocked") and (not isinstance(value, cst.Call) or not value.args):
            self.report(call, Safety.SAFE, "indexing_mode= of pl.BlockSpec was removed in jax 0.6.1; Blocked was the "
                        "default", _drop_indexing_mode, kernel_receives="unchanged (the same blocks)")
            return
        if kind not in ("Unblocked", "unblocked"):
            return
        shape_arg = keyword(call, "block_shape") or (args[0] if args else None)
        shape = shape_arg.value if shape_arg is not None else None
        padding: Optional[list] = None
        if isinstance(value, cst.Call) and value.args:
            pad = keyword(value, "padding") or value.args[0]
            if isinstance(pad.value, (cst.Tuple, cst.List)) and all(isinstance(e.value, (cst.Tuple, cst.List))
                                                                    for e in pad.value.elements):
                padding = [e.value for e in pad.value.elements]
            elif not (isinstance(pad.value, cst.Name) and pad.value.value == "None"):
                padding = []
        why = None
        if not isinstance(shape, (cst.Tuple, cst.List)) or any(isinstance(e, cst.StarredElement) for e in shape.elements):
            why = "its block_shape is not a literal tuple"
        elif padding is not None and len(padding) != len(shape.elements):
            why = "its padding is not a literal pair per dimension"
        if why is not None:
            self.report(mode, Safety.MANUAL, f"indexing_mode=pl.Unblocked() was removed in jax 0.6.1 and is not "
                        f"rewritten ({why}): give block_shape a pl.Element(size) per dimension instead")
            return
        head = head_name(value.func if isinstance(value, cst.Call) else value)

        def shape_edit(updated: cst.CSTNode) -> cst.CSTNode:
            element = f"{head}.Element" if head and isinstance(value.func if isinstance(value, cst.Call) else value,
                                                               cst.Attribute) else self.ctx.name_for(f"{PALLAS}.Element")
            new = []
            for i, e in enumerate(updated.elements):
                if isinstance(e.value, cst.Name) and e.value.value == "None":
                    new.append(e)
                    continue
                call_args = [cst.Arg(e.value)]
                if padding is not None:
                    call_args = [cst.Arg(e.value, comma=SPACED_COMMA), cst.Arg(padding[i])]
                new.append(e.with_changes(value=cst.Call(func=cst.parse_expression(element), args=call_args)))
            return updated.with_changes(elements=new)

        self.report(shape, Safety.SAFE, "indexing_mode=pl.Unblocked() was removed in jax 0.6.1: each block_shape "
                    "entry is a pl.Element(size) instead", shape_edit, kernel_receives="unchanged (the same element "
                    "offsets)")
        self.report(call, Safety.SAFE, "indexing_mode= of pl.BlockSpec was removed in jax 0.6.1 (the Element entries "
                    "of block_shape say it now)", _drop_indexing_mode, kernel_receives="unchanged (the same element "
                    "offsets)")

    # -- other references ---------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        return self._reference(node)

    def visit_Name(self, node: cst.Name) -> Optional[bool]:
        return self._reference(node)

    def _reference(self, node: cst.CSTNode) -> Optional[bool]:
        """A removed name this rule owns, read other than in a call it rewrites or an
        indexing_mode it converts: manual."""
        qualified = self.ctx.qualified_name(node)
        if qualified not in OWNED_NAMES:
            return None
        name = qualified.rsplit(".", 1)[1]
        if not self._target(LOAD_STORE_SINCE if name in ("load", "store", "swap") else ELEMENT_SINCE):
            return None
        up, use = parent(self.ctx, node), node
        if isinstance(up, cst.ImportAlias):
            return False  # its uses are reported (or rewritten) where they are
        if isinstance(up, cst.Call) and up.func is node:
            if name in ("load", "store", "swap"):
                return False  # visit_Call rewrites or reports the call
            up, use = parent(self.ctx, up), up
        if isinstance(up, cst.Arg) and up.value is use and up.keyword is not None and up.keyword.value == "indexing_mode":
            return False  # converted (or reported) with its BlockSpec
        if compatibility_guard(self.ctx, node):
            return False
        self.report(node, Safety.MANUAL, f"{qualified} was removed from jax ({OWNED_NAMES[qualified]}); there is no "
                    f"call of it here to rewrite")
        return False


#: The removed names this rule reports wherever it does not rewrite them (removed-jax-api
#: leaves them to it), and when jax removed each.
OWNED_NAMES = {
    f"{PALLAS}.load": "0.10.0; ref[idx]",
    f"{PALLAS}.store": "0.10.0; ref[idx] = val",
    f"{PALLAS}.swap": "0.10.0",
    f"{PALLAS}.Unblocked": "0.6.1; pl.Element entries in block_shape",
    f"{PALLAS}.unblocked": "0.6.1; pl.Element entries in block_shape",
}
