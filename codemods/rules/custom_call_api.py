"""``custom-call-api``: replace the removed ``custom_call`` builders with ``jax.ffi``.

Legacy form
    ``jax.interpreters.mlir.custom_call(...)`` (public from jax 0.4.16, deprecated 0.6.0,
    **removed in 0.8.0**: ``AttributeError: module 'jax.interpreters.mlir' has no attribute
    'custom_call'``), ``jaxlib.hlo_helpers.custom_call(...)`` (**removed in 0.8.0**:
    ``ModuleNotFoundError: No module named 'jaxlib.hlo_helpers'``) and its predecessor
    ``jaxlib.mhlo_helpers.custom_call`` (jaxlib <= 0.4.1), also when a project module
    re-exports one of them under another name. The private
    ``jax._src.interpreters.mlir.custom_call`` still exists and is left alone, except
    where ``mlir`` is the public module with the private one as its import fallback: the
    public import never fails, so the call reads the removed public name.

Replacement (minimum jax 0.7.1 for the forms below; the rule emits nothing the
``--target-jax`` lacks, and leaves sites alone for targets where the legacy API works)
    * The call's ``.results`` is used: ``jax.ffi.ffi_lowering(name, ...)(ctx, *operands)``,
      which returns exactly that list (``jax.ffi`` 0.5.0; ``skip_ffi_layout_processing``
      0.7.0).
    * Anything else (``.result``, ``.operation``, the op kept in a variable):
      ``jax.ffi.build_ffi_lowering_function(name, ...)(ctx, *operands)``, which returns the
      op itself (0.7.1). An op kept in a name bound once whose only reads are
      ``return op.results`` is as good as returned results: jax checks that a rule returns
      one value per output, so explicit result layouts pair with ``ctx.avals_out``. So is
      ``return op.results[:n]`` of a call with ``n`` result types (jax-flash-attn3).
    * Old ``out_types`` signatures (jaxlib <= 0.4.14) returned a list of values, or one
      value for one result on jaxlib <= 0.4.7 / ``mhlo_helpers``; the rewrite returns the
      same: the list from ``ffi_lowering`` where the call is returned or indexed (``[C]``
      returned from a rule becomes the list itself; so does ``out = C`` when ``out`` is
      bound once and only returned: a rule must return a sequence, so only the list
      return ever worked there; also when the rule returns it wrapped for the one-value
      era, ``return (out,)`` or ``return (out,) if len(layouts) == 1 else out``: jax
      flattens the list in that 1-tuple), ``.result`` of the op for a single
      ``mhlo_helpers`` result. A call that spells ``out_types=`` as a keyword but reads
      ``.results`` is a ``result_types`` call: no value of the ``out_types`` era had
      ``.results``, only the op of the keyword signature.

    Once every call is migrated, a ``try``/``if`` that only chose between the removed
    builders' imports goes too (also when its last handler raises ``ImportError``).

    A re-export (mpi4jax's ``jax_compat.py``: ``if versiontuple(jaxlib.__version__) >= (0, 4,
    2): from jaxlib.hlo_helpers import custom_call as hlo_custom_call / else: from
    jaxlib.mhlo_helpers import ...``, a module-level import, plain or under ``if``/``try``, of
    a removed builder that its module never uses) fails the package at import even once
    every call of it in the modules importing it is migrated. When the run migrates every
    project module that imports the name from it (the project index: each module records
    the re-exports it holds and those it imports) and each of them has *all* its uses
    rewritten (which drops its import), the re-export is deleted: the whole ``if``/``try``
    when every branch only imports removed builders as that name, otherwise the import
    alone (``pass`` where it was all its block held). The deletion is linked to the
    importers' rewrites: if one fails, is not selected, is suppressed, or is unsafe without
    ``--unsafe-fixes``, the re-export stays and is reported manual, naming the importers and
    what keeps it; so does a module of the package outside the run (or using it in another
    form, ``jax_compat.hlo_custom_call``) that spells the name. Nothing outside the project
    can be broken by the deletion: on a jax without the builder, importing the name from
    there failed already (the finding says so, or that the module is private: ``_name`` or
    inside ``_src``). Without any importer the deletion says nothing in the project imports
    it; a name listed in a string (``__all__``) is exported on purpose and stays.

    Arguments: ``api_version`` is written explicitly (the old default 2 when it was absent:
    the new helpers default to 4, typed FFI, which a legacy kernel cannot decode);
    ``backend_config`` and ``result_types`` (``out_types``) are passed on unchanged;
    ``operand_layouts``/``result_layouts`` are passed on when given, otherwise
    ``skip_ffi_layout_processing=True`` keeps the op without layout attributes, as before;
    ``has_side_effect``, ``result_shapes``, ``called_computations``,
    ``operand_output_aliases`` and ``extra_attributes`` reach the same builder. A ``bytes``
    literal target name is decoded. The lowering context is the enclosing lowering rule's
    first parameter, or a later one that is annotated ``LoweringRuleContext`` or read as a
    context (``ctx.avals_out``...), as in rules registered as ``partial(rule, "target")``;
    without one the change is manual. A rule that had no use for its context and deleted
    it (``del ctx``, its only use) loses the ``del`` with the rewrite (the two are linked);
    one that both deletes and reads it stays manual. A module-level import of a removed builder that
    nothing uses is dropped (the import alone stops the module from loading). A builder
    bound in a lowering rule with ``call = functools.partial(hlo_helpers.custom_call, name,
    result_types=..., ...)`` and only called there, ``call(operands=[...], ...)``, becomes
    ``functools.partial(jax.ffi.build_ffi_lowering_function, name, api_version=2, ...)`` with
    each call ``call(...)(ctx, *operands)``: each site is read as the one call it made, and
    all convert or none. The builder kept as a value otherwise (the partial handed on,
    ``cc = mlir.custom_call``) hides the calls made through it: it is reported where it is
    kept, as manual.

    ``ffi_lowering`` pairs explicit layouts with ``ctx.avals_in`` by position, so a call with
    operands that are not inputs of the primitive (descriptor constants, tokens built in
    the rule) passes ``ctx.replace(avals_in=[*ctx.avals_in, None, ...])``: one more entry per
    such operand, so no layout is dropped (an explicit layout ignores its aval). Layouts
    computed from ``ctx.avals_in`` / ``ctx.avals_out`` themselves need no padding. When the
    extra operands cannot be counted (appended to a list, one per descriptor word) but the
    operand layouts are an expression that reads the same twice (a name, displays and
    comprehensions of names), the context is ``ctx.replace(avals_in=[None] *
    len(<operand layouts>))``: the old builders had no default layout (every entry was
    turned into an array) and required one layout per operand, so that is one aval per
    operand. Layouts computed by a helper call count by the operand display instead:
    ``operands=[descriptor, source, *points]`` (jax-finufft) gives ``[None] * (2 +
    len(points))``, the starred parts plain names read again. ``operands=list(args)`` of the rule's ``*args`` counts as the inputs, unless
    the rule binds the name again: ``ins = [mlir.ir_constant(v) for v in info] + list(ins)``
    (braintaichi) is read by the value it is bound to, once, in the rule's own body
    before the call; a name bound more often than that, or changed in place
    (``ins.append(c)``, or through another name or a helper it is handed to), is not
    counted.

    Results are paired with ``ctx.avals_out`` the same way. When the call's results cannot be
    matched to the primitive's outputs (a workspace or scratch result the rule drops:
    ``out.results[:-1]``, ``out, _ws = C.results``), the context also gets
    ``avals_out=[None] * <one per result layout>`` (or one per result type, when the
    layouts come from a call and the types read the same twice: a token among the
    results, or are a display without starred entries, counted as written:
    ``result_types=[ir.RankedTensorType.get(...), ...]``) and the call ``result_shapes=None``: the
    old builders took the result types explicitly, and with explicit types ``ffi_lowering``
    reads ``ctx.avals_out`` only to pair the explicit layouts (which ignore their aval) and
    to decide whether to compute ``result_shapes`` for dynamic shapes, which the old call
    never did (checked on jax 0.7.2 and 0.10.2: the emitted op is identical).

What the kernel receives afterwards
    The same call: target, ``api_version``, operands, ``backend_config`` bytes and layouts
    are unchanged in the emitted ``stablehlo.custom_call``.

Safety
    Safe when the emitted op is provably the same; every other site is manual, with the
    reason and the replacement: no lowering context in reach; only one of the two layout
    lists given (StableHLO never accepted that op, so the other list is the author's
    decision); operands or results that cannot be counted against ``ctx.avals_in`` /
    ``ctx.avals_out`` when layouts are explicit and are not an expression that reads the
    same twice; splatted arguments; a site in a
    compatibility guard that keeps it for older jax (rewriting it would break those
    releases); an old single-value return that cannot be told from the list return.

    Apart from re-exports, files are migrated one at a time. A builder call inside a plain
    helper (a module-level function with no lowering context of its own: TransformerEngine's
    ``custom_caller(name, args, opaque, has_side_effect, **kwargs)``, jaxlib-style
    ``_lu_hlo(dtype, a)``) is rewritten when the helper can provably take the context: every
    use of its name in the module is a direct call from inside a lowering rule (nothing
    else reads it: no value, no ``partial``, no string such as ``__all__``), the name is
    bound once, the function is undecorated, and every other module of the package that
    imports it does so by name (``from .custom_call import custom_caller``, TransformerEngine's
    primitive modules), only calls it, holds ``custom_call`` (the text that brings a file to
    this rule: TransformerEngine's ``custom_caller`` itself), and is migrated in the same
    run; each such call, from inside a lowering rule and returned as its result (the old
    ``out_types`` builder gave one value or a list by jaxlib release), passes that rule's
    context first, a change linked to the helper's (the engine keeps both or neither). A
    module reading it as an attribute or a string, or (a public name) star-importing,
    keeps it. Then, as
    one linked change set (all or nothing; a ``# ccmigrate: ignore`` on any of its lines
    keeps all of it): the helper takes ``ctx`` (another free name if ``ctx`` is taken) as
    its first parameter, each call passes its rule's context first, and each builder call
    becomes ``jax.ffi.build_ffi_lowering_function(name, api_version=<old, 2 by default>,
    ..., result_shapes=None)(ctx..., *operands)``. Inside a helper the operands and
    results need not be the caller's inputs and outputs, so the call reads neither
    ``ctx.avals_in`` nor ``ctx.avals_out``: explicit layouts get
    ``ctx.replace(avals_in=[None] * len(<operand layouts>), avals_out=[None] *
    len(<result layouts>))`` (``skip_ffi_layout_processing`` would drop them: the builder
    passes layouts on only when it processes them; an explicit layout ignores its aval),
    no layouts get ``skip_ffi_layout_processing=True``, and ``result_shapes=None`` (the
    old builders' default) skips the dynamic-shape check of ``ctx.avals_out``. The
    helper's value stays what it was: the op (``.results`` / ``.result`` of it read as
    before), or for the old ``out_types`` signature the list, ``.results``, only when every
    caller returns the helper's value as its rule's result (otherwise one value or a list
    by jaxlib release cannot be told). ``**kwargs`` of the helper splatted into the
    builder are passed on (to ``mlir.custom_call``: ``operand_output_aliases``...) when no
    caller splats ``**`` itself or passes a keyword the rewrite also writes; ``*args``
    splatted into the builder stays manual. A builder call under a compatibility guard
    stays as it is for the releases that take that branch, and does not keep the helper
    from taking the context for its other calls: TransformerEngine's ``if hasattr(mlir,
    "custom_call"): mlir.custom_call(...) else: custom_call(...)`` picked between two
    builders that jax 0.8 both removed, so on an installed jax that lacks
    ``mlir.custom_call`` the ``else`` is the branch that runs, and it is the one rewritten
    (a ``hasattr`` test of a jax name is read on the installed jax, when it is the target,
    only as far as the name's absence: what a compiled module binds is not indexed).
    Otherwise the finding names the helper's callers in
    the module and the context each holds, and why it was not rewritten; a call, in
    another module, of such a project helper (imported by name; its module read from disk
    next to this file, also under a ``src/`` layout) is reported too, naming the defining
    module and the context to pass.

    A signature shim (jax-finufft, 2023: ``def custom_call(*args, **kwargs): try: return
    _custom_call(*args, **kwargs).results / except TypeError: kwargs["out_types"] =
    kwargs.pop("result_types"); return (_custom_call(*args, **kwargs),)``), a module-level
    function that only forwards its arguments to a removed builder and returns ``.results``,
    alone or in a ``try`` whose handlers catch only TypeError, is inlined: on every release
    the rewrite can target the ``try`` branch is what ran (the handler served jaxlib's
    ``out_types`` signature), so each call ``custom_call(name, result_types=..., ...)`` is
    the builder's call read as ``.results`` and becomes ``ffi_lowering(...)(ctx, ...)`` as
    above. The shim is then deleted, and its builder import with it. The context may also be
    a later parameter ``ctx`` whose only use is a ``del ctx`` (a rule registered as
    ``partial(rule, "cpu")`` that needed no context before): the ``del`` goes. All of one shim's changes
    are linked, and nothing happens when a call cannot convert (the ``out_types`` keyword,
    no context, a compatibility guard, layouts that cannot be paired), the shim is used
    other than by calling it, is named in a string, or another module may import it; each
    call and the builder calls in the shim are then reported with the reason.

Before::

    from jaxlib.hlo_helpers import custom_call

    def _kepler_lowering(ctx, mean_anom, ecc):
        out = mlir.aval_to_ir_type(ctx.avals_out[0])
        return custom_call("cpu_kepler_f32", result_types=[out, out],
                           operands=[mlir.ir_constant(size), mean_anom, ecc],
                           operand_layouts=layouts, result_layouts=layouts[1:]).results

After::

    import jax

    def _kepler_lowering(ctx, mean_anom, ecc):
        out = mlir.aval_to_ir_type(ctx.avals_out[0])
        return jax.ffi.ffi_lowering("cpu_kepler_f32", api_version=2, result_types=[out, out],
                           operand_layouts=layouts, result_layouts=layouts[1:])(ctx.replace(avals_in=[*ctx.avals_in, None]), mlir.ir_constant(size), mean_anom, ecc)
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
from functools import lru_cache
from typing import Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods import walk
from codemods.names import iter_statements, public_spelling, resolve_relative
from codemods.rule import IndexEntry, Rule, Safety
from codemods.rules._crossmodule import (defining_file, is_private_module, package_files_parsed, package_files_reading,
                                         where_text)
from codemods.rules._shared import (
    TIGHT_EQUAL,
    LoweringRule,
    added_terms,
    ancestors,
    compatibility_guard,
    drop_binding_if_unused,
    enclosing_lowering_rule,
    forwarded_builder_call,
    import_without,
    jax_fallback_guard,
    project_module_ast,
    project_module_file,
    keyword,
    PURE_BUILTINS,
    CallsOf,
    OwnScope,
    mutated_in,
    one_line,
    parent,
    short,
    version_text,
)

PUBLIC_MLIR = "jax.interpreters.mlir.custom_call"
HLO_HELPERS = "jaxlib.hlo_helpers.custom_call"
MHLO_HELPERS = "jaxlib.mhlo_helpers.custom_call"
#: Legacy builder -> the first jax release that no longer has it.
REMOVED_IN = {PUBLIC_MLIR: (0, 8, 0), HLO_HELPERS: (0, 8, 0), MHLO_HELPERS: (0, 4, 2)}
LEGACY_MODULES = {"jax.interpreters.mlir": PUBLIC_MLIR, "jaxlib.hlo_helpers": HLO_HELPERS, "jaxlib.mhlo_helpers": MHLO_HELPERS}

FFI_LOWERING = "jax.ffi.ffi_lowering"
BUILD_FFI = "jax.ffi.build_ffi_lowering_function"
#: First jax release with each piece the rewrite may emit.
NEEDS = {"jax.ffi": (0, 5, 0), "skip_ffi_layout_processing": (0, 7, 0), BUILD_FFI: (0, 7, 1)}

#: Positional order of the jaxlib <= 0.4.14 signature (``out_types`` era).
OLD_POSITIONAL = (
    "call_target_name", "out_types", "operands", "operand_layouts", "result_layouts",
    "backend_config", "has_side_effect", "api_version", "operand_output_aliases", "result_shapes",
)
KNOWN_KEYWORDS = frozenset(OLD_POSITIONAL) | {"result_types", "called_computations", "extra_attributes"}


class CustomCallApi(Rule):
    __doc__ = __doc__
    name = "custom-call-api"
    summary = "Rewrite mlir.custom_call / jaxlib.hlo_helpers.custom_call (removed in jax 0.8.0) to jax.ffi lowering."
    triggers = (b"custom_call",)
    # Not statement-scoped: a call of a project helper that wraps the builder, or of a
    # project module's re-export of it, holds no trigger and is bound by an import that
    # holds none either.

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # Local names of imported legacy builders -> number of sites rewritten through them.
        self.rewritten: dict[str, int] = {}
        self._legacy_locals: Optional[frozenset[str]] = None
        # Uses of every name outside import statements, counted on the engine's walk:
        # what decides, at the end, whether an import is unused or every use rewritten
        # (a walk of its own would cost as much as the rule's whole visit).
        self._name_uses: dict[str, int] = {}
        self._attribute_names: set[int] = set()
        self._import_depth = 0
        # Local name of a builder -> the findings rewriting its calls (safe or unsafe):
        # linked to the deletion of the re-export that name comes from.
        self._sites: dict[str, list] = {}
        # Plain helpers holding builder calls (no lowering context of their own) -> those
        # calls, and why a helper cannot take the context (one of its calls stays, say).
        self._helper_sites: dict[cst.FunctionDef, list[HelperSite]] = {}
        self._helper_blocked: dict[cst.FunctionDef, str] = {}
        # Builder calls of those helpers that a compatibility guard keeps for older releases
        # (reported as such): they need no context, and do not keep the helper from taking one.
        self._helper_guarded: dict[cst.FunctionDef, list[HelperSite]] = {}
        # Module-level signature shims (``def custom_call(*args, **kwargs): try: return
        # _custom_call(*args, **kwargs).results / except TypeError: ...``) by name.
        self._shims: Optional[dict[str, Shim]] = None
        # Links of the ``del ctx`` removals already reported (one per lowering rule).
        self._deleted_contexts: set = set()

    @classmethod
    def index(cls, path: str, source: bytes) -> Optional[IndexEntry]:
        """The removed builders this module re-exports, and the re-exports it imports from
        other project modules: a re-export goes only together with the migration of every
        use in the modules importing it."""
        from codemods.engine import package_of

        package = package_of(path, source)
        facts = reexport_facts(path, package, source)
        # A helper wrapping a builder that other modules call (TransformerEngine's
        # ``custom_caller``) takes the lowering context together with their calls.
        callers = _helper_callers(path, package, source)
        if facts is None and not callers:
            return None
        concerns = {where for where, _ in facts.imports} if facts is not None else set()
        return IndexEntry(facts or Reexports((), ()), tuple(sorted(concerns | callers)))

    def visit_Import(self, node: cst.Import) -> None:
        self._import_depth += 1

    def leave_Import(self, original_node: cst.Import) -> None:
        self._import_depth -= 1

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._import_depth += 1

    def leave_ImportFrom(self, original_node: cst.ImportFrom) -> None:
        self._import_depth -= 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        # ``jaxlib.hlo_helpers.custom_call``: the attribute is no use of a name ``custom_call``.
        self._attribute_names.add(id(node.attr))
        if not self._import_depth and "custom_call" in node.attr.value:
            self._value_use(node)

    def visit_Name(self, node: cst.Name) -> None:
        if not self._import_depth and id(node) not in self._attribute_names:
            uses = self._name_uses
            uses[node.value] = uses.get(node.value, 0) + 1
            if "custom_call" in node.value or node.value in self.legacy_locals():
                self._value_use(node)

    def _value_use(self, node: cst.BaseExpression) -> None:
        """The removed builder held as a value (``call = functools.partial(custom_call,
        name, ...)``, ``cc = mlir.custom_call``) rather than called: the calls made through
        it are not followed, so each is the user's to rewrite."""
        parent = self.ctx.parents.get(node)
        if isinstance(parent, cst.Call) and parent.func is node:
            return  # a call site: visit_Call
        if self._partial_builder(node):
            return
        if isinstance(parent, (cst.AssignTarget, cst.Comparison, cst.ComparisonTarget, cst.Attribute, cst.Del)) \
                or (isinstance(parent, cst.Arg) and isinstance(self.ctx.parents.get(parent), cst.Call)
                    and get_full_name_for_node(self.ctx.parents.get(parent).func) in ("callable", "hasattr", "getattr", "isinstance")):
            return
        legacy = self.legacy_name(node)
        if legacy not in REMOVED_IN or self.ctx.options.target_jax < REMOVED_IN[legacy]:
            return
        if compatibility_guard(self.ctx, node) is not None or jax_fallback_guard(self.ctx, node) is not None:
            return
        holder = parent
        while holder is not None and not isinstance(holder, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            holder = self.ctx.parents.get(holder)
        text = one_line(self.ctx.module.code_for_node(holder))[:70] if isinstance(holder, cst.SimpleStatementLine) else ""
        where = legacy.rsplit(".", 1)[0] + ".custom_call"
        self.report(
            node,
            Safety.MANUAL,
            f"{where} (removed in jax {'.'.join(map(str, REMOVED_IN[legacy]))}) is kept as a value"
            + (f" (`{text}`)" if text else "")
            + ", so the calls made through it are not followed: call `jax.ffi.ffi_lowering(target, api_version=2, "
            "result_types=..., operand_layouts=..., result_layouts=..., backend_config=...)(ctx, *operands)` at each "
            "of them instead (api_version 2 was the builder's default; ctx.replace(avals_in=...) when operands are "
            "added), then drop this",
        )

    def _partial_builder(self, node: cst.BaseExpression) -> bool:
        """``custom_call = functools.partial(hlo_helpers.custom_call, name, result_types=...,
        result_layouts=...)`` in a lowering rule, then ``custom_call(operands=[...],
        operand_layouts=..., backend_config=...).results`` (Hs293Go's quadrotor model):
        the partial binds ``build_ffi_lowering_function`` with the same arguments (and the
        builder's default api_version 2), each call passes its operands to the lowering
        function it returns. Read as one call per site, with the partial's arguments and
        the site's; every site must convert, or none does (reported at the partial)."""
        arg = self.ctx.parents.get(node)
        call = self.ctx.parents.get(arg)
        if not (isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and call.args and call.args[0] is arg
                and arg.keyword is None and not arg.star
                and self.ctx.qualified_name(call.func) == "functools.partial"):
            return False
        legacy = self.legacy_name(node)
        assign = self.ctx.parents.get(call)
        statement = self.ctx.parents.get(assign)
        if legacy not in (HLO_HELPERS, PUBLIC_MLIR) or self.ctx.options.target_jax < NEEDS[BUILD_FFI] \
                or not (isinstance(assign, cst.Assign) and assign.value is call and len(assign.targets) == 1
                        and isinstance(assign.targets[0].target, cst.Name) and isinstance(statement, cst.SimpleStatementLine)):
            return False
        rule = enclosing_lowering_rule(self.ctx, call)
        name = assign.targets[0].target
        scope = self.ctx.scopes.get(name)
        assignments = list(scope.assignments[name.value]) if scope is not None else []
        if rule is None or len(assignments) != 1 or compatibility_guard(self.ctx, call) is not None:
            return False
        bound = call.args[1:]
        if any(a.star for a in bound) or len([a for a in bound if a.keyword is None]) > 1 \
                or (bound and bound[0].keyword is not None and not any(a.keyword and a.keyword.value == "call_target_name" for a in bound)):
            return False
        sites = []
        for access in assignments[0].references:
            use = access.node
            site_call = self.ctx.parents.get(use)
            if not (isinstance(site_call, cst.Call) and site_call.func is use) \
                    or any(a.keyword is None or a.star for a in site_call.args) \
                    or enclosing_lowering_rule(self.ctx, site_call) is None \
                    or enclosing_lowering_rule(self.ctx, site_call).function is not rule.function:
                return False
            keys = {a.keyword.value for a in site_call.args} & {a.keyword.value for a in bound if a.keyword}
            if keys or not any(a.keyword.value == "operands" for a in site_call.args):
                return False
            merged = cst.Call(func=call.args[0].value, args=[*bound, *site_call.args])
            site = Site.read(merged, legacy)
            if isinstance(site, str) or site.old_signature or site.needs() and any(
                    self.ctx.options.target_jax < NEEDS[api] for api in site.needs()):
                return False
            usage, replaced, _ = self.usage(site_call, site)
            if usage not in ("results", "op"):
                return False
            safety, notes, ctx_expr, no_result_shapes = self.check_layouts(site_call, site, rule, usage, replaced)
            if safety is not Safety.SAFE or "skip_ffi_layout_processing" in (site.needs() or ()):
                return False
            sites.append((site_call, site, ctx_expr, no_result_shapes))
        if not sites:
            return False
        key = ("custom-call-partial", self.ctx.path, rule.function.name.value, name.value)
        version = next((a for a in bound if a.keyword and a.keyword.value == "api_version"), None)

        def partial_edit(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            self._drop_legacy_import(node)
            args = list(updated.args)
            args[0] = args[0].with_changes(value=cst.parse_expression(self.ctx.name_for(BUILD_FFI)))
            if len(args) > 1 and args[1].keyword is None:
                args[1] = args[1].with_changes(value=_decoded(args[1].value))
            if version is None:
                at = 2 if len(args) > 1 and args[1].keyword is None else 1
                args.insert(at, cst.Arg(cst.Integer("2"), keyword=cst.Name("api_version"), equal=TIGHT_EQUAL,
                                        comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
                if at == len(args) - 1:
                    args[at] = args[at].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                    args[at - 1] = args[at - 1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            return updated.with_changes(args=args)

        self.report(call, Safety.SAFE, f"functools.partial of {legacy} (removed in jax {version_text(REMOVED_IN[legacy])}) "
                    f"-> functools.partial of {BUILD_FFI} with the same arguments (api_version "
                    f"{sites[0][1].api_version_text()}), each call then given ctx and its operands",
                    partial_edit, kernel_receives="the same custom calls: target, api_version, operands, backend_config "
                    "bytes and layouts unchanged", link=key)
        for site_call, site, ctx_expr, no_result_shapes in sites:
            def site_edit(updated: cst.CSTNode, ctx_expr=ctx_expr, no_result_shapes=no_result_shapes) -> cst.CSTNode:
                assert isinstance(updated, cst.Call)
                kept = [a for a in updated.args if a.keyword.value != "operands"]
                operands = next(a for a in updated.args if a.keyword.value == "operands").value
                if no_result_shapes:
                    kept.append(cst.Arg(cst.Name("None"), keyword=cst.Name("result_shapes"), equal=TIGHT_EQUAL))
                if kept:
                    # The last argument keeps the call's closing layout (a trailing comma and
                    # the newline before the parenthesis).
                    kept[-1] = kept[-1].with_changes(comma=updated.args[-1].comma)
                inner = [cst.Arg(ctx_expr)]
                if isinstance(operands, (cst.List, cst.Tuple)):
                    inner += [cst.Arg(e.value, star="*" if isinstance(e, cst.StarredElement) else "") for e in operands.elements]
                else:
                    inner.append(cst.Arg(operands, star="*"))
                inner = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in inner[:-1]] + inner[-1:]
                func = updated.with_changes(args=kept)
                if not kept and "#" not in cst.Module([]).code_for_node(updated):
                    # ``call(\n    operands=[x, u],\n)``: nothing is left between the
                    # parentheses (a comment there keeps its line).
                    func = func.with_changes(whitespace_before_args=cst.SimpleWhitespace(""))
                return cst.Call(func=func, args=inner)

            self.report(site_call, Safety.SAFE, "a call of the partial builder -> the lowering function it returns, given "
                        "ctx and the operands", site_edit, kernel_receives="the same custom call", link=key)
        return True

    # -- finding sites ---------------------------------------------------------------
    def legacy_name(self, func: cst.BaseExpression) -> Optional[str]:
        # Resolving names costs far more than this test; most calls are nothing like a site.
        if isinstance(func, cst.Attribute):
            if "custom_call" not in func.attr.value:
                return None
        elif isinstance(func, cst.Name):
            if "custom_call" not in func.value and func.value not in self.legacy_locals():
                return None
        else:
            return None
        qual = self.ctx.qualified_name(func)
        if qual in REMOVED_IN:
            return qual
        if qual is None and isinstance(func, cst.Name):
            # ``try: from jaxlib.mhlo_helpers import custom_call / except: from jaxlib.hlo_helpers
            # import custom_call``: the name is bound twice, but only ever to a legacy builder.
            bound = [b.qualified for b in self.ctx.names.imports if b.local == func.value]
            if bound and all(q in REMOVED_IN for q in bound) and not self._locally_bound(func):
                return HLO_HELPERS if HLO_HELPERS in bound else bound[0]
        if qual is not None and qual not in REMOVED_IN and "." in qual and "custom_call" in qual.rsplit(".", 1)[1]:
            return _reexported(self.ctx.path, self.ctx.package, qual)
        if qual is None:
            # ``try: from jax.interpreters import mlir / except ImportError: from
            # jax._src.interpreters import mlir``: either way the same builder, and on a
            # jax with the public module (every release) the removed public name.
            candidates = self.ctx.qualified_names(func)
            public = {public_spelling(q) for q in candidates}
            if len(public) == 1 and (only := next(iter(public))) in REMOVED_IN and only in candidates:
                return only
        return None

    def legacy_locals(self) -> frozenset[str]:
        if self._legacy_locals is None:
            self._legacy_locals = frozenset(b.local for b in self.ctx.names.imports if b.qualified in REMOVED_IN)
        return self._legacy_locals

    def _locally_bound(self, name: cst.Name) -> bool:
        scope = self.ctx.scopes.get(name)
        if scope is None:
            return True
        return any(not isinstance(a.node, (cst.Import, cst.ImportFrom)) for a in scope[name.value])

    def visit_Call(self, node: cst.Call) -> None:
        legacy = self.legacy_name(node.func)
        if legacy is None:
            shim = self._shim_called(node)
            if shim is not None:
                shim.calls.append(node)
                return
            self._call_of_project_wrapper(node)
            return
        if self.ctx.options.target_jax < REMOVED_IN[legacy]:
            return  # still works on the target release
        helper = self._plain_helper(node)
        shim = self.signature_shims().get(helper.name.value) if helper is not None else None
        if shim is not None and shim.function is helper:
            shim.inner.append(node)  # reported with the shim's plan
            return
        before = len(self.ctx.findings)
        self._site(node, legacy, helper)
        if helper is not None and len(self.ctx.findings) > before:
            # A helper takes the context only when every builder call in it can use it.
            self._helper_blocked.setdefault(helper, "another custom_call in it stays as it is (see its finding)")

    def _site(self, node: cst.Call, legacy: str, helper: Optional[cst.FunctionDef]) -> None:
        target = self.ctx.options.target_jax
        where = legacy.rsplit(".", 1)[0] + ".custom_call"
        # ``**kwargs`` of a helper can go on to the FFI builder once the helper's callers
        # are known; in a lowering rule (or anywhere else) they stay as unknown as ever.
        guarded = compatibility_guard(self.ctx, node) is not None
        # (A site a compatibility guard keeps is not rewritten: its splat is only read.)
        site = Site.read(node, legacy, splat_ok=helper is not None or guarded)
        if isinstance(site, str):
            self.report(node, Safety.MANUAL, f"{where} call cannot be rewritten automatically: {site}; "
                        f"{self._wrapper_note(node)}{GUIDANCE}")
            return
        missing = [api for api in site.needs() if target < NEEDS[api]]
        if missing:
            need = max(NEEDS[api] for api in missing)
            self.report(
                node,
                Safety.MANUAL,
                f"{where} was removed in jax {version_text(REMOVED_IN[legacy])}; its replacement "
                f"({', '.join(missing)}) needs jax >= {version_text(need)} but the target is {version_text(target)}",
            )
            return
        usage, replaced, reason = self.usage(node, site)
        if usage is None:
            self.report(node, Safety.MANUAL, f"{where} call with the old out_types signature: {reason}; {GUIDANCE}")
            return
        rule = enclosing_lowering_rule(self.ctx, node)
        if rule is None and helper is not None:
            # (``if hasattr(mlir, "custom_call"): mlir.custom_call(...) else: custom_call(...)``,
            # TransformerEngine's wrapper: the first branch stays for the releases that have
            # the builder, the other runs on the target, which has neither builder.)
            sites = self._helper_guarded if guarded else self._helper_sites
            sites.setdefault(helper, []).append(HelperSite(node, site, usage, replaced, legacy, where))
            return
        if rule is None:
            self.report(
                node,
                Safety.MANUAL,
                f"{where} was removed in jax {version_text(REMOVED_IN[legacy])} and no enclosing lowering rule "
                f"(a function whose first parameter is the LoweringRuleContext) is in reach; "
                f"{self._wrapper_note(node)}{GUIDANCE}",
            )
            return
        if guarded:
            builder = FFI_LOWERING if usage in ("results", "list") else BUILD_FFI
            self._report_guarded(node, replaced, site, legacy, where, builder)
            return
        deletion = None
        if _deletions_of(rule.function, rule.ctx_name):
            # ``del ctx`` (the context was unused): the rewrite reads it, so the ``del`` goes too.
            deletion = _context_deletion(node, self.ctx, rule.ctx_name)
            if deletion is None:
                self.report(node, Safety.MANUAL, f"{where} call: the rule deletes its context `{rule.ctx_name}` "
                            f"(`del {rule.ctx_name}`) and reads it too; {GUIDANCE}")
                return
        safety, notes, ctx_expr, no_result_shapes = self.check_layouts(node, site, rule, usage, replaced)
        if safety is Safety.MANUAL:
            self.report(node, Safety.MANUAL, f"{where} call: {notes}; {GUIDANCE}")
            return
        builder = FFI_LOWERING if usage in ("results", "list") else BUILD_FFI
        accepted = safety is Safety.SAFE or self.ctx.options.unsafe_fixes
        if accepted and isinstance(node.func, cst.Name):
            self.rewritten[node.func.value] = self.rewritten.get(node.func.value, 0) + 1
        message = (
            f"{where} (removed in jax {version_text(REMOVED_IN[legacy])}) -> {builder}"
            f"(..., api_version={site.api_version_text()}){'(ctx, ...)'}"
            + (f"; {notes}" if notes else "")
        )

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            call = _find_call(updated, usage)
            spelt = self.ctx.name_for(builder)
            self._drop_legacy_imports(node, site)
            return site.rewrite(call, usage, spelt, ctx_expr, no_result_shapes)

        link = None
        if deletion is not None:
            link = (self.name, "del-context", os.path.abspath(self.ctx.path), rule.function.name.value, id(rule.function))
            if link not in self._deleted_contexts:
                self._deleted_contexts.add(link)
                self.report(deletion, Safety.SAFE, f"`del {rule.ctx_name}` dropped: the lowering context is now passed to the "
                            "custom call", lambda _updated: cst.RemoveFromParent(), link=link)
        self.report(
            replaced,
            safety,
            message,
            edit,
            kernel_receives=f"the same custom call: target, api_version {site.api_version_text()}, operands, "
            "backend_config bytes and layouts unchanged",
            link=link,
        )
        if isinstance(node.func, cst.Name):
            self._sites.setdefault(node.func.value, []).append(self.ctx.findings[-1])

    def _report_guarded(self, node: cst.Call, replaced: cst.CSTNode, site: "Site", legacy: str, where: str, helper: str) -> None:
        guard = compatibility_guard(self.ctx, node)
        # Only the target and api_version: the arguments may carry other rules' edits of
        # this run, and the message (an annotation under --annotate) must not change.
        target = site.args.get("call_target_name")
        target_text = short(self.ctx.module.code_for_node(_decoded(target.value)), 60) if target is not None else "name"
        suggestion = (f"jax.ffi.{helper.rsplit('.', 1)[1]}({target_text}, api_version={site.api_version_text()}, "
                      "<the other arguments as they are>)(ctx, *operands)")
        self.report(
            replaced,
            Safety.MANUAL,
            f"{where} sits inside the compatibility guard {guard}, which keeps it for jax releases that still "
            f"have it; left as is. When jax < {version_text(REMOVED_IN[legacy])} is no longer supported, use: {suggestion}",
        )

    # -- builders wrapped in helpers --------------------------------------------------------
    def _plain_helper(self, node: cst.Call) -> Optional[cst.FunctionDef]:
        """The function holding ``node`` when no lowering context is in reach there."""
        function = next((a for a in ancestors(self.ctx, node) if isinstance(a, cst.FunctionDef)), None)
        if function is None or enclosing_lowering_rule(self.ctx, node) is not None:
            return None
        return function

    def _wrapper_note(self, node: cst.Call, problem: Optional[str] = None) -> str:
        """For a builder call inside a plain helper (no lowering context of its own): the
        helper's callers in this module, which hold the context it needs."""
        function = next((a for a in ancestors(self.ctx, node) if isinstance(a, cst.FunctionDef)), None)
        if function is None or enclosing_lowering_rule(self.ctx, node) is not None:
            return ""
        name = function.name.value
        finder = CallsOf(name)
        walk.read(self.ctx.module, finder)
        # Annotations shift lines, and the comment must read the same on a second run.
        annotate = self.ctx.options.annotate
        ranges = {} if annotate else self.ctx.locate(finder.found)
        callers = []
        for call in finder.found:
            where = f"line {ranges[call].start.line}" if call in ranges else "a call"
            rule = enclosing_lowering_rule(self.ctx, call)
            if rule is None:
                callers.append(where)
            else:
                inside = f"`{rule.function.name.value}` (context `{rule.ctx_name}`)"
                callers.append(inside if annotate else f"{where} in {inside}")
        called = f"called from {', '.join(callers)}" if callers else "not called in this module"
        why = f"; not rewritten automatically since {problem}" if problem else ""
        return (f"`{name}` is a helper, not a lowering rule ({called}){why}: give it the lowering context as a parameter, "
                f"pass each caller's context, and have other modules that import `{name}` pass theirs; then ")

    def _plan_helpers(self) -> None:
        """Give each plain helper holding builder calls the lowering context, when every
        use of it is a call from a lowering rule here: the helper takes it as its first
        parameter, each call passes its rule's context, and the builder calls use it; all
        of it, or nothing (manual, naming the callers and what keeps it)."""
        for function, guarded in self._helper_guarded.items():
            for hs in guarded:
                # pyscfad: ``if jax < 0.8: ... custom_call(...)`` in a helper serves the
                # releases that still have the builder; it is not to be rewritten there.
                builder = FFI_LOWERING if hs.usage in ("results", "list") else BUILD_FFI
                self._report_guarded(hs.node, hs.replaced, hs.site, hs.legacy, hs.where, builder)
        for function, sites in self._helper_sites.items():
            plan = self._helper_plan(function, sites)
            if isinstance(plan, str):
                for hs in sites:
                    self.report(
                        hs.node,
                        Safety.MANUAL,
                        f"{hs.where} was removed in jax {version_text(REMOVED_IN[hs.legacy])} and no enclosing lowering rule "
                        f"(a function whose first parameter is the LoweringRuleContext) is in reach; "
                        f"{self._wrapper_note(hs.node, plan)}{GUIDANCE}",
                    )
                continue
            self._report_helper(function, sites, plan)

    def _helper_plan(self, function: cst.FunctionDef, sites: list["HelperSite"]) -> "HelperPlan | str":
        """How ``function`` takes the context, or why it cannot (the reason, worded to follow
        "not rewritten automatically since")."""
        blocked = self._helper_blocked.get(function)
        if blocked is not None:
            return blocked
        name = function.name.value
        if not isinstance(parent(self.ctx, function), cst.Module):
            return f"`{name}` is not a module-level function"
        if function.decorators:
            return f"`{name}` is decorated, so its callers may not call it directly"
        params = function.params
        if params.posonly_params:
            return f"`{name}` has positional-only parameters"
        binding = self._sole_binding(function)
        if isinstance(binding, str):
            return binding
        calls: list[tuple[cst.Call, LoweringRule]] = []
        for access in binding.references:
            ref = access.node
            call = parent(self.ctx, ref)
            if not (isinstance(call, cst.Call) and call.func is ref):
                return f"`{name}` is also used other than by calling it (passed or kept as a value)"
            rule = enclosing_lowering_rule(self.ctx, call)
            inner = next((a for a in ancestors(self.ctx, call) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
            if rule is None or inner is not rule.function:
                caller = inner.name.value if isinstance(inner, cst.FunctionDef) else None
                return (f"`{name}` is also called from {f'`{caller}`' if caller else 'code'}, which holds no lowering context")
            calls.append((call, rule))
        partners = self._calling_modules(name)
        if isinstance(partners, str):
            return partners
        if partners and self.ctx.options.project is None:
            # (Only a run that indexed the project settles a decision across files.)
            return self._used_elsewhere(name, list(partners))
        if not calls and not partners:
            return ""  # the note says it is not called here
        splat_name = params.star_kwarg.name.value if isinstance(params.star_kwarg, cst.Param) else None
        named = {p.name.value for p in [*params.params, *params.kwonly_params]}
        for hs in sites:
            if hs.site.splat is None:
                continue
            value = hs.site.splat.value
            if not (isinstance(value, cst.Name) and value.value == splat_name):
                return "it splats a mapping into the custom_call other than its own `**` parameter"
            # Only the callers' keywords may be in it: the helper itself neither reads nor adds any.
            inner = self.ctx.scopes.get(value)
            bound = list(inner.assignments[splat_name]) if inner is not None else []
            passed = {id(h.site.splat.value) for h in (*sites, *self._helper_guarded.get(function, ()))
                      if h.site.splat is not None}
            if len(bound) != 1 or any(id(a.node) not in passed for a in bound[0].references):
                return f"it uses `**{splat_name}` other than by passing it on to the custom_call"
            # What the callers put in ``**kwargs`` reaches mlir.custom_call beside what the
            # rewrite passes: none of those names, nothing unknown.
            written = {*hs.site.args, "result_types", "result_shapes", "operand_layouts", "result_layouts",
                       "skip_ffi_layout_processing", "api_version", "backend_config", "operands"}
            for call, _rule in calls:
                if any(a.star == "**" for a in call.args):
                    return f"a call of `{name}` splats `**` arguments it passes on to the custom_call"
                clash = [a.keyword.value for a in call.args
                         if a.keyword is not None and a.keyword.value not in named and a.keyword.value in written]
                if clash:
                    return f"a call of `{name}` passes `{clash[0]}=` through `**{splat_name}` besides the custom_call's own"
        for hs in sites:
            # mhlo_helpers' one value for one result is no list, even wrapped.
            wrapped = not (hs.site.legacy == MHLO_HELPERS and hs.site.result_count() == 1)
            if hs.usage == "list" and not all(isinstance(parent(self.ctx, c), cst.Return)
                                              or self._assigned_then_returned(c, parent(self.ctx, c), wrapped)
                                              for c, _ in calls):
                # The old out_types value was one value or a list by jaxlib release; a lowering
                # rule returning it tells which (a rule must return a sequence, and jax flattens
                # ``[out]`` / ``(out,)`` of either alike), a helper does not.
                return (f"its custom_call has the old out_types signature, which returned one value or a list by jaxlib "
                        f"release, and not every caller returns `{name}`'s value as its lowering rule's result")
            operand_layouts, result_layouts = hs.site.layout("operand_layouts"), hs.site.layout("result_layouts")
            if (operand_layouts is None) != (result_layouts is None):
                return "its custom_call gives only one of the two layout lists, which the StableHLO verifier rejects"
            if operand_layouts is not None and not (_pure(operand_layouts.value) and _pure(result_layouts.value)):
                return "its custom_call's layouts are expressions that may not read the same twice"
        taken = walk.names_in(function)
        param = next(n for n in ("ctx", "lowering_ctx", "lowering_context", "ctx_") if n not in taken)
        key = (self.name, "helper", os.path.abspath(self.ctx.path), name)
        project = self.ctx.options.project
        if project is not None and key in project.vetoed:
            at, why = project.vetoed[key]
            if at == os.path.abspath(self.ctx.path):
                return why
            return f"`{where_text(self.ctx.path, at)}`, which calls it, cannot pass its context ({why})"
        suppressed = self._suppressed_among([function.params, *(hs.node for hs in sites), *(c for c, _ in calls)])
        if suppressed is not None:
            return suppressed
        return HelperPlan(param, calls, key, partners)

    def _sole_binding(self, function: cst.FunctionDef):
        """The module-level function's one binding of its name (whose references are its
        uses), or why its uses cannot all be known here."""
        name = function.name.value
        scope = self.ctx.scopes.get(function)
        if scope is None:
            return f"the uses of `{name}` cannot be told"
        assignments = list(scope.assignments[name])
        if len(assignments) != 1:
            return f"`{name}` is bound more than once in this module"
        if re.search(rf"[\'\"]{re.escape(name)}[\'\"]", self.ctx.module.code):
            return f"`{name}` is named in a string (`__all__`, getattr), so it may be used other than by the calls here"
        return assignments[0]

    def _imported_elsewhere(self, name: str) -> Optional[str]:
        """Why other modules of the project may use this module's ``name``, if they may."""
        importers = _helper_importers(self.ctx.path, self.ctx.package, name)
        return self._used_elsewhere(name, importers) if importers else None

    def _used_elsewhere(self, name: str, importers: list) -> str:
        listed = ", ".join(f"`{where_text(self.ctx.path, p)}`" for p in importers[:3]) + (", ..." if len(importers) > 3 else "")
        return f"other modules of the project may use `{name}` ({listed} import it, read it or star-import)"

    def _calling_modules(self, name: str) -> "tuple[str, ...] | str":
        """The other modules of the project that use this module's ``name``, each only by
        importing it by name and calling it (TransformerEngine's ``from .custom_call import
        custom_caller`` in every primitive's module): they pass their rules' contexts, each
        confirming its side of the linked change. Otherwise why they keep the helper as it is."""
        importers = _helper_importers(self.ctx.path, self.ctx.package, name)
        stem = os.path.splitext(os.path.basename(self.ctx.path))[0]
        sources = {p: _read_bytes(p) for p in importers}
        if not all(_only_calls_imported(source, name, stem) for source in sources.values()):
            return self._used_elsewhere(name, importers)
        for path, source in sources.items():
            if not any(t in source for t in self.triggers):
                # (A run passes a file to this rule only when it holds one of its triggers.)
                return (f"`{where_text(self.ctx.path, path)}` calls it but holds no "
                        f"`{self.triggers[0].decode()}`, so a run does not migrate it with `{name}`")
        return tuple(sorted(os.path.abspath(p) for p in importers))

    def _suppressed_among(self, nodes: list) -> Optional[str]:
        """Why one of the linked changes at ``nodes`` would not be made: a suppression comment."""
        from codemods.engine import SUPPRESS

        lines = self.ctx.module.code.splitlines()
        for node, rng in self.ctx.locate(nodes).items():
            for number in range(rng.start.line, rng.end.line + 1):
                match = SUPPRESS.search(lines[number - 1]) if number - 1 < len(lines) else None
                if match and (match.group(1) is None or self.name in {r.strip() for r in match.group(1).split(",")}):
                    return "a `# ccmigrate: ignore` comment switches off one of the changes it needs"
        return None

    def _report_helper(self, function: cst.FunctionDef, sites: list["HelperSite"], plan: "HelperPlan") -> None:
        name, param = function.name.value, plan.param
        self.ctx.link(plan.key, [os.path.abspath(self.ctx.path), *plan.partners])
        # In the order of the module's text: a statement-by-statement visit and a whole walk
        # meet the calls in different orders, and must say the same.
        where = self.ctx.locate([call for call, _ in plan.calls])
        ordered = sorted(plan.calls, key=lambda pair: (where[pair[0]].start.line, where[pair[0]].start.column)
                         if pair[0] in where else (0, 0))
        callers = ", ".join(dict.fromkeys(f"`{rule.function.name.value}`" for _, rule in ordered))
        where_called = f"({callers}), all lowering rules of this module" if callers else ""
        if plan.partners:
            others = ", ".join(f"`{where_text(self.ctx.path, p)}`" for p in plan.partners)
            where_called += f"{' and ' if callers else ''}in lowering rules of {others}, which pass theirs"
        self.report(function.params, Safety.SAFE,
                    f"`{name}` builds a custom call without a lowering context: it takes one as its first parameter "
                    f"`{param}`, passed by every caller {where_called}",
                    lambda updated: updated.with_changes(params=[cst.Param(cst.Name(param)), *updated.params]),
                    link=plan.key)
        for call, rule in ordered:
            ctx_name = rule.ctx_name
            self.report(call, Safety.SAFE,
                        f"`{name}` now takes the lowering context first: `{rule.function.name.value}` passes its `{ctx_name}`",
                        lambda updated, ctx_name=ctx_name: updated.with_changes(args=[cst.Arg(cst.Name(ctx_name)), *updated.args]),
                        link=plan.key)
        for hs in sites:
            self._report_helper_site(hs, name, param, plan.key)

    def _report_helper_site(self, hs: "HelperSite", name: str, param: str, key) -> None:
        site, usage, node = hs.site, hs.usage, hs.node
        operand_layouts, result_layouts = site.layout("operand_layouts"), site.layout("result_layouts")
        if operand_layouts is None:
            ctx_expr: cst.BaseExpression = cst.Name(param)
        else:
            # The helper's operands and results need not be its callers' inputs and outputs:
            # one None aval per explicit layout (which ignores its aval), so none is dropped.
            module = self.ctx.module
            ctx_expr = cst.parse_expression(
                f"{param}.replace(avals_in=[None] * {_length(operand_layouts.value, module)}, "
                f"avals_out=[None] * {_length(result_layouts.value, module)})")
        if isinstance(node.func, cst.Name):
            self.rewritten[node.func.value] = self.rewritten.get(node.func.value, 0) + 1
        tail = {"results": ".results", "list": ".results", "result": ".result"}.get(usage, "")

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            call = _find_call(updated, usage)
            spelt = self.ctx.name_for(BUILD_FFI)
            self._drop_legacy_imports(node, site)
            new = site.rewrite(call, "result" if usage == "result" else "op", spelt, ctx_expr, True)
            return cst.Attribute(value=new, attr=cst.Name("results")) if usage in ("results", "list") else new

        self.report(
            hs.replaced,
            Safety.SAFE,
            f"{hs.where} (removed in jax {version_text(REMOVED_IN[hs.legacy])}) -> {BUILD_FFI}"
            f"(..., api_version={site.api_version_text()})({param}, ...){tail} in helper `{name}`, with the lowering "
            "context it now takes; the call reads neither its avals_in nor its avals_out (result_shapes=None"
            + (", one None aval per explicit layout)" if operand_layouts is not None else ", no layouts)"),
            edit,
            kernel_receives=f"the same custom call: target, api_version {site.api_version_text()}, operands, "
            "backend_config bytes and layouts unchanged",
            link=key,
        )
        if isinstance(node.func, cst.Name):
            self._sites.setdefault(node.func.value, []).append(self.ctx.findings[-1])

    def _call_of_project_wrapper(self, node: cst.Call) -> None:
        """``helper(...)`` imported from another module of the project whose ``helper`` calls
        a removed builder: reported there, but this call must change with it."""
        if not isinstance(node.func, cst.Name):
            return
        local = node.func.value
        binding = next((b for b in self.ctx.names.imports if b.local == local and b.from_module is not None), None)
        if binding is None or binding.qualified.split(".")[0] in ("jax", "jaxlib"):
            return
        module, _, function = binding.qualified.rpartition(".")
        found = _project_wrapper(self.ctx.path, self.ctx.package, module, function)
        if found is None:
            return
        where, legacy, defined_in = found
        if self.ctx.options.target_jax < REMOVED_IN[legacy]:
            return
        rule = enclosing_lowering_rule(self.ctx, node)
        first = node.args[0] if node.args else None
        if rule is not None and first is not None and first.keyword is None and not first.star \
                and isinstance(first.value, cst.Name) and first.value.value == rule.ctx_name:
            return  # it passes the rule's context already (the helper takes it: migrated)
        # The defining module's plan for the helper (``_report_helper``) and this call's
        # change are one linked decision: each stands only with the other.
        key = (self.name, "helper", defined_in, function)
        here = os.path.abspath(self.ctx.path)
        project = self.ctx.options.project
        context = f"this lowering rule's context `{rule.ctx_name}`" if rule else "the enclosing lowering rule's context"
        if project is None or defined_in not in project.files:
            # Only a run holding both files settles a change linked across them.
            self.report(
                node,
                Safety.MANUAL,
                f"`{local}` (defined in {where}) wraps {legacy}, removed in jax {version_text(REMOVED_IN[legacy])} and "
                f"reported there: this file is migrated on its own, so once `{local}` takes the lowering context, "
                f"pass {context} here",
            )
            return
        vetoed = project.vetoed.get(key)
        problem = None if vetoed is not None else self._wrapper_call_problem(node, rule)
        if vetoed is None and problem is None:
            ctx_name = rule.ctx_name
            self.ctx.link(key, [defined_in, here])
            self.report(node, Safety.SAFE,
                        f"`{local}` (defined in {where}) wraps {legacy}, migrated there with the lowering context the "
                        f"helper now takes first: `{rule.function.name.value}` passes its `{ctx_name}`",
                        lambda updated: updated.with_changes(args=[cst.Arg(cst.Name(ctx_name)), *updated.args]),
                        link=key)
            return
        if vetoed is None:
            self.ctx.link(key, [defined_in, here], problem=problem)
        why = problem if vetoed is None else (vetoed[1] if vetoed[0] == here else f"in {where_text(self.ctx.path, vetoed[0])}, {vetoed[1]}")
        self.report(
            node,
            Safety.MANUAL,
            f"`{local}` (defined in {where}) wraps {legacy}, removed in jax {version_text(REMOVED_IN[legacy])} and "
            f"reported there; it does not take the lowering context automatically since {why}: once it does, "
            f"pass {context} here",
        )

    def _wrapper_call_problem(self, node: cst.Call, rule: Optional[LoweringRule]) -> Optional[str]:
        """Why this call of another module's helper cannot pass its rule's context (worded
        to follow "since"), or None."""
        inner = next((a for a in ancestors(self.ctx, node) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
        if rule is None or inner is not rule.function:
            return "a call of it here holds no lowering context"
        if any(a.star for a in node.args):
            return "a call of it here splats its arguments"
        clash = [a.keyword.value for a in node.args if a.keyword is not None and a.keyword.value in _BUILDER_KEYWORDS]
        if clash:
            return f"a call of it here passes `{clash[0]}=`, which the migrated builder call writes itself"
        up = parent(self.ctx, node)
        if not (isinstance(up, cst.Return) or self._assigned_then_returned(node, up, True)):
            # The old out_types builder gave one value or a list by jaxlib release; a rule
            # returning the helper's value works with either, other uses may not.
            return "a call of it here is not returned as its lowering rule's result"
        return None

    # -- signature shims ----------------------------------------------------------------------
    def signature_shims(self) -> dict[str, "Shim"]:
        """Module-level functions that only forward to a removed builder and return its
        ``.results``, catching the TypeError of the releases with the older signature."""
        if self._shims is None:
            self._shims = {}
            for stmt in self.ctx.module.body:
                if not isinstance(stmt, cst.FunctionDef):
                    continue
                inner = forwarded_builder_call(stmt)
                legacy = self.legacy_name(inner.func) if inner is not None else None
                if legacy is not None and self.ctx.options.target_jax >= REMOVED_IN[legacy]:
                    self._shims[stmt.name.value] = Shim(stmt, legacy)
        return self._shims

    def _shim_called(self, node: cst.Call) -> Optional["Shim"]:
        if not isinstance(node.func, cst.Name):
            return None
        shim = self.signature_shims().get(node.func.value)
        if shim is None:
            return None
        scope = self.ctx.scopes.get(node.func)
        assignments = list(scope[node.func.value]) if scope is not None else []
        if len(assignments) != 1 or assignments[0].node is not shim.function:
            return None  # a local of the same name, or the name bound again
        return shim

    def _plan_shims(self) -> None:
        """Inline each signature shim at its calls, then delete it: on every jax the target
        can be, the shim's ``try`` branch is what ran (the ``except TypeError`` served jaxlib
        releases with the ``out_types`` signature), so each call is the builder's call read
        as ``.results``. All of one shim's changes are linked: every call converts, the shim
        goes, and a ``del ctx`` the rule kept for the unused context goes, or none of it."""
        for name, shim in (self._shims or {}).items():
            plan = self._shim_plan(name, shim)
            if isinstance(plan, str):
                for call in shim.calls:
                    self.report(call, Safety.MANUAL,
                                f"`{name}` forwards to {shim.where} (removed in jax {version_text(REMOVED_IN[shim.legacy])}) "
                                f"for older jaxlib signatures; not inlined automatically since {plan}: {GUIDANCE}")
                for inner in shim.inner:
                    self.report(inner, Safety.MANUAL,
                                f"{shim.where} (removed in jax {version_text(REMOVED_IN[shim.legacy])}) called by the signature "
                                f"shim `{name}`, which stays since {plan}: once each call of `{name}` is written as the "
                                f"builder's call it forwards (`{FFI_LOWERING}(name, api_version=2, ...)(ctx, *operands)`), "
                                "delete the shim")
                continue
            self._report_shim(name, shim, plan)

    def _shim_plan(self, name: str, shim: "Shim") -> "list | str":
        """Per call ``(call, site, rule, safety, notes, ctx_expr, no_result_shapes)``, or why
        the shim stays (worded to follow "since")."""
        function = shim.function
        if not shim.calls:
            return f"`{name}` is not called in this module"
        binding = self._sole_binding(function)
        if isinstance(binding, str):
            return binding
        called = {id(c.func) for c in shim.calls}
        if any(id(access.node) not in called for access in binding.references):
            return f"`{name}` is also used other than by calling it (passed or kept as a value)"
        imported = self._imported_elsewhere(name)
        if imported is not None:
            return imported
        target = self.ctx.options.target_jax
        planned = []
        deleted: set[int] = set()
        for call in shim.calls:
            line = self._line_text(call)
            site = Site.read(call, shim.legacy)
            if isinstance(site, str):
                return f"its call{line} cannot be read: {site}"
            if site.old_signature or "result_types" not in site.args:
                return (f"its call{line} uses the old out_types signature, which the shim served only through the "
                        "TypeError fallback")
            missing = [api for api in site.needs() if target < NEEDS[api]]
            if missing:
                return f"the replacement ({', '.join(missing)}) needs a newer jax than the target {version_text(target)}"
            rule = enclosing_lowering_rule(self.ctx, call) or self._deleted_context(call)
            if rule is None:
                return f"its call{line} has no lowering context in reach"
            guard = compatibility_guard(self.ctx, call)
            if guard is not None:
                return f"its call{line} sits inside the compatibility guard {guard}"
            if _deletions_of(rule.function, rule.ctx_name) and _context_deletion(call, self.ctx, rule.ctx_name) is None:
                return f"the rule of its call{line} deletes its context `{rule.ctx_name}` and reads it too"
            safety, notes, ctx_expr, no_result_shapes = self.check_layouts(call, site, rule, "results", call)
            if safety is Safety.MANUAL:
                return f"its call{line}: {notes}"
            planned.append((call, site, rule, safety, notes, ctx_expr, no_result_shapes))
            deleted.add(id(rule.function))
        key = (self.name, "shim", os.path.abspath(self.ctx.path), name)
        project = self.ctx.options.project
        if project is not None and key in project.vetoed:
            return project.vetoed[key][1]
        deletes = [stmt for call, _site, rule, *_ in planned
                   for stmt in [_context_deletion(call, self.ctx, rule.ctx_name)] if stmt is not None]
        suppressed = self._suppressed_among([function, *shim.calls, *deletes])
        if suppressed is not None:
            return suppressed
        return planned

    def _line_text(self, node: cst.CSTNode) -> str:
        if self.ctx.options.annotate:
            return ""  # annotations shift lines; the comment must read the same on a second run
        where = self.ctx.locate([node])
        return f" (line {where[node].start.line})" if node in where else ""

    def _deleted_context(self, node: cst.CSTNode) -> Optional[LoweringRule]:
        """``def lowering(platform, ctx, source, *points, ...): del ctx`` (jax-finufft, a rule
        registered as ``partial(lowering, "cpu")`` that used no context): the parameter
        named ``ctx`` whose one use is that ``del`` is the context."""
        function = next((a for a in ancestors(self.ctx, node) if isinstance(a, cst.FunctionDef)), None)
        if function is None or _context_deletion(node, self.ctx) is None:
            return None
        params = [*function.params.posonly_params, *function.params.params]
        index = next(i for i, p in enumerate(params) if p.name.value == "ctx")
        star = function.params.star_arg
        return LoweringRule(function, "ctx", tuple(p.name.value for p in params[index + 1:]),
                            star.name.value if isinstance(star, cst.Param) else None)

    def _report_shim(self, name: str, shim: "Shim", planned: list) -> None:
        key = (self.name, "shim", os.path.abspath(self.ctx.path), name)
        self.ctx.link(key, [os.path.abspath(self.ctx.path)])
        for call, site, rule, safety, notes, ctx_expr, no_result_shapes in planned:
            builder = FFI_LOWERING

            def edit(updated: cst.CSTNode, site=site, ctx_expr=ctx_expr, no_result_shapes=no_result_shapes) -> cst.CSTNode:
                return site.rewrite(_find_call(updated, "results"), "results", self.ctx.name_for(builder), ctx_expr,
                                    no_result_shapes)

            self.report(
                call,
                safety,
                f"`{name}` (a shim over {shim.where}, removed in jax {version_text(REMOVED_IN[shim.legacy])}, returning "
                f"its .results) -> {builder}(..., api_version={site.api_version_text()})(ctx, ...)"
                + (f"; {notes}" if notes else ""),
                edit,
                kernel_receives=f"the same custom call: target, api_version {site.api_version_text()}, operands, "
                "backend_config bytes and layouts unchanged",
                link=key,
            )
        seen: set[int] = set()
        for call, _site, rule, *_ in planned:
            stmt = _context_deletion(call, self.ctx, rule.ctx_name)
            if stmt is None or id(stmt) in seen:
                continue
            seen.add(id(stmt))
            self.report(stmt, Safety.SAFE, f"`del {rule.ctx_name}` dropped: the lowering context is now passed to the "
                        "custom call", lambda _updated: cst.RemoveFromParent(), link=key)

        def delete(_updated: cst.CSTNode) -> cst.CSTNode:
            for inner in shim.inner:
                self._drop_legacy_import(inner.func)
            return cst.RemoveFromParent()

        self.report(shim.function, Safety.SAFE,
                    f"shim `{name}` over {shim.where} deleted: every call of it is inlined, and the removed builder it "
                    "forwards to cannot be imported", delete, link=key)

    def _drop_legacy_imports(self, node: cst.Call, site: "Site") -> None:
        """The builder's import goes once unused, and so does the one an ``api_version``
        enum read: the enum becomes an integer, and an xla_client import it alone used
        would otherwise survive this pass and be removed by the next (no fixed point)."""
        self._drop_legacy_import(node.func)
        version = site.args.get("api_version")
        if version is not None and _api_version_number(version.value) is not None:
            self._drop_legacy_import(version.value)

    def _drop_legacy_import(self, func: cst.BaseExpression) -> None:
        head = (get_full_name_for_node(func) or "").split(".")[0]
        for binding in self.ctx.names.imports:
            if binding.local != head:
                continue
            if binding.from_module is not None:
                obj = binding.qualified.rsplit(".", 1)[1]
                asname = head if head != obj else None
                self.ctx.remove_import_if_unused(binding.from_module, obj, asname)
            else:
                drop_binding_if_unused(self.ctx, head)

    def leave_Module(self, original_node: cst.Module) -> None:
        """Delete ``try``/``if`` blocks that only chose between legacy builder imports,
        once every use of the names they bind has been rewritten (otherwise removing the
        imports would leave ``try: pass / except ImportError: pass`` behind). Re-exports of
        a builder for other modules go with their migration there (``_delete_reexports``)."""
        self._plan_shims()
        self._plan_helpers()
        self._link_imported_reexports()
        self._drop_unused_imports(original_node, self._delete_reexports())
        if not self.rewritten:
            return
        done = {n for n, count in self.rewritten.items() if self._name_uses.get(n, 0) == count}
        if not done:
            return
        for stmt in original_node.body:
            if isinstance(stmt, (cst.Try, cst.If)) and _only_legacy_imports(stmt, done, self.ctx):
                self.report(
                    stmt,
                    Safety.SAFE,
                    "compatibility guard choosing between removed custom_call builders; every use is migrated",
                    lambda _node: cst.RemoveFromParent(),
                )

    # -- builders re-exported by one module, used in others ----------------------------------
    def _link_imported_reexports(self) -> None:
        """This module's side of deleting each re-export it imports: all its uses migrated
        (the rewrites are linked to the deletion, so a rewrite not made keeps the
        re-export), or the reason the re-export must stay."""
        project = self.ctx.options.project
        if project is None:
            return
        indexed = project.of(self.name)
        mine = indexed.get(os.path.abspath(self.ctx.path))
        if mine is None:
            return
        for where, name in mine.imports:
            theirs = indexed.get(where)
            key = (self.name, "re-export", where, name)
            if theirs is None or name not in theirs.names or key in project.vetoed:
                continue  # no deletion to take part in: the rewrites stand on their own
            locals_ = sorted({b.local for b in self.ctx.names.imports if b.from_module is not None
                              and defining_file(self.ctx.path, self.ctx.package, b.qualified) == (where, name)})
            problem = None
            if not locals_:
                problem = f"the project index did not recognise its import of `{name}`"
            for local in locals_:
                uses, sites = self._name_uses.get(local, 0), self._sites.get(local, [])
                if problem is not None:
                    break
                if not uses:
                    problem = f"it imports `{local}` without using it, an import that would then fail"
                elif len(sites) < uses:
                    # No counts: the message must read the same once the other uses are migrated.
                    problem = f"it has uses of `{local}` that cannot be migrated automatically; see the findings there"
            self.ctx.link(key, [where], problem)
            if problem is None:
                for local in locals_:
                    for finding in self._sites[local]:
                        finding.link = key
                self._drop_reexport_imports(locals_, key, where)

    def _drop_reexport_imports(self, locals_: list, key: tuple, where: str) -> None:
        """Drop this module's imports of a re-export whose every use here is migrated, as
        changes linked to its deletion: its module is left with no import that would
        fail once the name is gone (``from .. import name`` included, which the unused
        import clean-up does not follow)."""
        for binding in self.ctx.names.imports:
            if binding.local not in locals_ or not isinstance(binding.statement, cst.ImportFrom):
                continue

            def edit(updated, local=binding.local):
                return import_without(updated, lambda a: get_full_name_for_node(a.asname.name if a.asname else a.name) == local)

            self.report(binding.statement, Safety.SAFE,
                        f"import of `{binding.local}`, the removed custom_call re-exported by "
                        f"`{where_text(self.ctx.path, where)}`, dropped: every use here is migrated and the re-export "
                        "goes with them", edit, link=key)

    def _delete_reexports(self) -> set:
        """Delete each re-export of a removed builder (a module-level import of it that this
        module never uses) when every project module importing it migrates all its uses in
        this run: linked to those migrations, so the engine keeps the re-export if one is
        not made. Otherwise report it, naming what still uses it. Returns the import
        statements decided here."""
        project = self.ctx.options.project
        here = os.path.abspath(self.ctx.path)
        facts = project.of(self.name).get(here) if project is not None else None
        if facts is None or not facts.names:
            return set()
        decided: set = set()
        for local in facts.names:
            bindings = [b for b in self.ctx.names.imports if b.local == local]
            legacy = [b for b in bindings if b.qualified in REMOVED_IN and LEGACY_MODULES.get(b.from_module or "") == b.qualified]
            if (not legacy or self._name_uses.get(local) or any(not b.top_level for b in bindings)
                    or any(self.ctx.options.target_jax < REMOVED_IN[b.qualified] for b in legacy)):
                continue
            importers = sorted(p for p, f in project.of(self.name).items() if (here, local) in f.imports)
            others = [p for p in package_files_reading(self.ctx.path, self.ctx.package, local) if p not in importers]
            tops = self._top_statements(legacy)
            if not importers and not others and all(isinstance(t, cst.SimpleStatementLine) for t in tops):
                continue  # a plain unused import, dropped as such
            decided.update(b.statement for b in legacy)
            key = (self.name, "re-export", here, local)
            named = ", ".join(f"`{where_text(self.ctx.path, p)}`" for p in importers)
            problem = None
            if len(legacy) < len(bindings):
                problem = f"`{local}` is also imported from elsewhere here"
            elif key in project.vetoed:
                at, why = project.vetoed[key]
                # Only the module at fault: the list of importers shrinks as they are migrated,
                # and the message (an annotation under --annotate) must read the same then.
                problem = why if at == here else f"`{where_text(self.ctx.path, at)}`, which imports it, cannot take its part ({why})"
            elif others:
                outside_run = [p for p in others if p not in project.files]
                listed = ", ".join(f"`{where_text(self.ctx.path, p)}`" for p in (outside_run or others))
                one = len(outside_run or others) == 1
                problem = (f"{listed} also refer{'s' if one else ''} to `{local}` and "
                           + (f"{'is' if one else 'are'} not among the files this run migrates" if outside_run
                              else f"{'does' if one else 'do'} not import it from here in a form this run follows"))
            if problem is not None:
                for binding in legacy:  # one finding at each import, which also accounts for it
                    self.report(
                        binding.statement,
                        Safety.MANUAL,
                        f"`{local}` is imported from the removed {binding.from_module} (gone in jax "
                        f"{version_text(REMOVED_IN[binding.qualified])}) and not used here, so it is re-exported for "
                        f"other modules; it stays because {problem}: migrate their uses (custom-call-api follows the "
                        "re-export to their call sites) and delete this import, or the module fails to import",
                    )
                continue
            builders = " / ".join(dict.fromkeys(b.qualified for b in legacy))
            why = (f"every module of the project importing it ({named}) has all its uses migrated in this run"
                   if importers else "no module of the project imports it")
            outside = (" (the module is private)" if is_private_module(self.ctx.path, self.ctx.package)
                       else "; code outside the project importing it from here already failed at import on this jax")
            message = (f"re-export of the removed {builders} as `{local}` deleted: {why}, so nothing in the project "
                       f"uses it any more{outside}")
            for node, edit in self._deletions(legacy, tops, local):
                self.report(node, Safety.SAFE, message, edit, link=key if importers else None)
            if importers:
                self.ctx.link(key, importers)
        return decided

    def _top_statements(self, bindings) -> list:
        """The module-level statement holding each binding's import, once each."""
        body = {id(stmt) for stmt in self.ctx.module.body}
        found: dict[int, cst.CSTNode] = {}
        for binding in bindings:
            node = binding.statement
            while node is not None and id(node) not in body:
                node = self.ctx.parents.get(node)
            if node is not None:
                found.setdefault(id(node), node)
        return list(found.values())

    def _deletions(self, bindings, tops: list, local: str) -> list:
        """``(node, edit)`` deleting the imports of ``bindings``: the whole ``if``/``try``
        when it only chooses between removed builders' imports of ``local``, otherwise only
        the import (``pass`` where it was all its block held)."""
        edits = []
        whole = [t for t in tops if isinstance(t, (cst.If, cst.Try)) and _only_legacy_imports(t, {local}, self.ctx, True)]
        edits += [(t, lambda _node: cst.RemoveFromParent()) for t in whole]
        for binding in bindings:
            node = binding.statement
            if any(_inside(self.ctx, node, t) for t in whole):
                continue
            line = self.ctx.parents.get(node)
            block = self.ctx.parents.get(line) if line is not None else None
            alone = (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
                     and isinstance(block, cst.IndentedBlock) and len(block.body) == 1)

            def edit(updated, alone=alone):
                kept = import_without(updated, lambda a: get_full_name_for_node(a.name) == "custom_call"
                                      and get_full_name_for_node(a.asname.name if a.asname else a.name) == local)
                return cst.Pass() if alone and isinstance(kept, cst.RemovalSentinel) else kept

            edits.append((node, edit))
        return edits

    def _drop_unused_imports(self, module: cst.Module, decided: set = frozenset()) -> None:
        """An import of a removed builder that nothing uses fails for nothing (at import
        time, or when the function holding it runs): drop it. Uses are counted over the
        whole module, so a name used anywhere keeps every import of it. Module-level
        imports under an ``if``/``try`` are left: there they are re-exports chosen by
        release (a function's own imports cannot be re-exported)."""
        unused: list[tuple[cst.ImportFrom, cst.ImportAlias, str]] = []
        direct = [small for stmt in module.body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body]
        nested = [small for small, top in iter_statements(module.body, True) if not top]
        for small in [*direct, *nested]:
            if not isinstance(small, cst.ImportFrom) or small.relative or isinstance(small.names, cst.ImportStar):
                continue
            legacy = LEGACY_MODULES.get(get_full_name_for_node(small.module) or "")
            if legacy is None or self.ctx.options.target_jax < REMOVED_IN[legacy]:
                continue
            if small in decided:
                continue
            for alias in small.names:
                if get_full_name_for_node(alias.name) == "custom_call":
                    unused.append((small, alias, get_full_name_for_node(alias.asname.name if alias.asname else alias.name) or ""))
        if not unused:
            return
        for node, alias, local in unused:
            if self._name_uses.get(local):
                continue
            legacy = LEGACY_MODULES[get_full_name_for_node(node.module) or ""]
            self.report(
                node,
                Safety.SAFE,
                f"unused import of {legacy} (removed in jax {version_text(REMOVED_IN[legacy])}) dropped: "
                "it only made the module fail at import",
                lambda updated, alias=alias: import_without(updated, lambda a: a.deep_equals(alias)),
            )

    # -- how the call's value is used ---------------------------------------------------
    def usage(self, node: cst.Call, site: "Site") -> tuple[Optional[str], cst.CSTNode, str]:
        """(usage, node to replace, reason when unknown).

        ``results``: ``C.results`` becomes the list ``ffi_lowering`` returns.
        ``list``: the old signature's list return, kept as ``ffi_lowering``'s list.
        ``op``: the op (``build_ffi_lowering_function``).
        ``result``: one value: ``build_ffi_lowering_function(...)(...).result``.
        """
        up = parent(self.ctx, node)
        if isinstance(up, cst.Attribute) and up.value is node and up.attr.value == "results":
            # Also with the ``out_types`` keyword: no value of that era (a list, or one
            # value) had ``.results``; only the op of the keyword signature does, so the
            # call was written for it and ``out_types`` is a leftover spelling.
            return "results", up, ""
        if not site.old_signature:
            return "op", node, ""
        if isinstance(up, cst.Return) or (isinstance(up, cst.Subscript) and up.value is node):
            return "list", node, ""
        count = site.result_count()
        # mhlo_helpers gave one value for one result: ``.result`` below keeps that exactly.
        one_value = site.legacy == MHLO_HELPERS and count == 1
        if self._assigned_then_returned(node, up, wrapped=not one_value):
            # ``out = custom_call(...); return out``: a rule must return a sequence, so only
            # the list return (jaxlib 0.4.8-0.4.14) ever worked here, as for a direct return.
            # ``return (out,)``, or ``(out,) if <one result> else out``, wrapped the one value
            # of jaxlib <= 0.4.7: jax flattens the list in that 1-tuple as it flattens ``[C]``.
            return "list", node, ""
        if isinstance(up, cst.Element):
            seq = parent(self.ctx, up)
            if isinstance(seq, (cst.List, cst.Tuple)) and len(seq.elements) == 1 and isinstance(parent(self.ctx, seq), cst.Return):
                # ``return [custom_call(...)]``: one value on jaxlib <= 0.4.7, a nested list later;
                # jax flattens either, so the rule's result is the list ffi_lowering returns.
                return "list", seq, ""
        if site.legacy == MHLO_HELPERS and count == 1:
            return "result", node, ""
        if site.legacy == MHLO_HELPERS and count is not None and count > 1:
            return "list", node, ""
        if count == 1 and self._feeds_op_builders(node, up):
            # ``hlo.ReshapeOp(t, custom_call(...))``: an op builder takes one value there,
            # which is what the call gave on jaxlib <= 0.4.7 (and the one result a builder
            # would have taken from 0.4.8's list, had it accepted one): ``.result`` is it.
            return "result", node, ""
        return None, node, (
            "it returned one value on jaxlib <= 0.4.7 but a list on 0.4.8-0.4.14, and this use "
            "does not tell which; use `jax.ffi.ffi_lowering(...)(ctx, *operands)` (a list) or "
            "`jax.ffi.build_ffi_lowering_function(...)(ctx, *operands).result` (one value)"
        )

    def _feeds_op_builders(self, node: cst.Call, up: Optional[cst.CSTNode]) -> bool:
        """The value is a positional operand of MLIR op builders (``hlo.ReshapeOp(t, v)``)
        and nothing else, directly or through a local name bound once to it."""
        if isinstance(up, cst.Arg):
            return self._op_operand(up)
        reads = self._reads_of_local(node, up)
        return bool(reads) and all(isinstance(read, cst.Name) and isinstance(arg := parent(self.ctx, read), cst.Arg)
                                   and arg.value is read and self._op_operand(arg) for read in reads)

    def _reads_of_local(self, node: cst.Call, up: Optional[cst.CSTNode]) -> list[cst.CSTNode]:
        """Where ``name = node`` (a function's local, bound there) is read; none otherwise.
        Other bindings of the name (``ret = custom_call(...)`` in each platform branch) do
        not matter: only where this value goes does."""
        if not (isinstance(up, cst.Assign) and up.value is node and len(up.targets) == 1
                and isinstance(up.targets[0].target, cst.Name)):
            return []
        scope = self.ctx.scopes.get(up)
        if scope is None or scope is scope.globals:
            return []
        target = up.targets[0].target
        assignments = [a for a in scope.assignments[target.value] if a.node is target]
        if len(assignments) != 1:
            return []
        return [ref.node for ref in assignments[0].references]

    def _op_operand(self, arg: cst.Arg) -> bool:
        call = parent(self.ctx, arg)
        if not isinstance(call, cst.Call) or arg.keyword is not None or arg.star:
            return False
        qualified = self.ctx.qualified_name(call.func) or ""
        module, _, op = qualified.rpartition(".")
        return op.endswith("Op") and op[:1].isupper() and (
            ".dialects." in module or module in ("jax.interpreters.mlir.hlo", "jax.interpreters.mlir.mhlo"))

    def _assigned_then_returned(self, node: cst.Call, up: Optional[cst.CSTNode], wrapped: bool = True) -> bool:
        """``name = node`` whose only binding is read only by ``return name`` (or, with
        ``wrapped``, by returns of ``(name,)`` / ``[name]``, also as a conditional's branch)."""
        reads = self._reads_of_local(node, up)
        return bool(reads) and all(self._returned_alone_or_wrapped(read, wrapped) for read in reads)

    def _returned_alone_or_wrapped(self, read: cst.CSTNode, wrapped: bool) -> bool:
        """``return read``, ``return (read,)`` / ``[read]``, or either as a branch of a
        conditional expression that is returned."""
        node, up = read, parent(self.ctx, read)
        if not wrapped:
            return isinstance(up, cst.Return) and up.value is node
        if isinstance(up, cst.Element):
            seq = parent(self.ctx, up)
            if not (isinstance(seq, (cst.List, cst.Tuple)) and len(seq.elements) == 1):
                return False
            node, up = seq, parent(self.ctx, seq)
        if isinstance(up, cst.IfExp) and (up.body is node or up.orelse is node):
            node, up = up, parent(self.ctx, up)
        return isinstance(up, cst.Return) and up.value is node

    # -- layouts and operand counts -------------------------------------------------------
    def check_layouts(self, node, site: "Site", rule: LoweringRule, usage: str, replaced) -> tuple[Safety, str, cst.BaseExpression, bool]:
        """(safety, note, the context to pass, whether ``result_shapes=None`` must be written)."""
        name = rule.ctx_name
        operand_layouts, result_layouts = site.layout("operand_layouts"), site.layout("result_layouts")
        if operand_layouts is None and result_layouts is None:
            return Safety.SAFE, "", cst.Name(name), False
        if (operand_layouts is None) != (result_layouts is None):
            given = "operand" if operand_layouts is not None else "result"
            other = "result" if given == "operand" else "operand"
            # StableHLO rejects this op ("Layout attributes should be specified for either both
            # operands and results or none"): there is no working behaviour to preserve, only
            # an intent to guess.
            return (
                Safety.MANUAL,
                f"only {given} layouts were given, which the StableHLO verifier rejects; decide the {other} "
                f"layouts (ffi_lowering would assume row-major) and pass both lists",
                cst.Name(name),
                False,
            )
        notes: list[str] = []
        avals_in: Optional[str] = None
        extra = self.extra_operands(site, rule)
        if extra is None and _pure(operand_layouts.value):
            # Every layout is explicit (the old builders turned each into an array and had no
            # default for None), so ffi_lowering only needs one aval per operand to zip with:
            # as many as there are layouts, which the old builders required to be operands.
            avals_in = f"[None] * {_length(operand_layouts.value, self.ctx.module)}"
            notes.append("operands beyond the primitive's inputs are not countable here: ctx.avals_in "
                         "has one entry per explicit operand layout")
        elif extra is None and (count := _operand_count(site.args.get("operands"), self.ctx, rule)) is not None:
            # The same holds counting the operands themselves: ``[descriptor, source,
            # *points]`` (jax-finufft) has ``2 + len(points)``, read again from plain names.
            avals_in = f"[None] * {count}"
            notes.append("operands beyond the primitive's inputs are not countable here: ctx.avals_in "
                         "has one entry per operand, each with its explicit layout")
        elif extra is None:
            return (
                Safety.MANUAL,
                "explicit operand layouts are paired with ctx.avals_in by position, and the number of operands "
                "beyond the primitive's inputs cannot be counted here: pass "
                "`ctx.replace(avals_in=[*ctx.avals_in, <one entry per extra operand>])` as the context",
                cst.Name(name),
                False,
            )
        elif extra:
            avals_in = f"[*{name}.avals_in{', None' * extra}]"
            notes.append(f"{extra} operand(s) beyond the primitive's inputs: ctx.avals_in padded so no layout is dropped")
        avals_out: Optional[str] = None
        if not self.results_match(node, site, rule, usage, replaced):
            # Results that are not the primitive's outputs (workspace buffers) would lose
            # layouts and fail to verify. The result types are explicit, so ctx.avals_out only
            # pairs with the explicit layouts (which ignore their aval) and decides whether
            # result_shapes are computed for dynamic shapes: one None per layout, and the old
            # call's result_shapes (None when it gave none) passed on so they are not.
            counted = result_layouts.value
            if not _countable(counted):
                # ``result_layouts=layouts_of(result_types)``: one result per result type.
                types = site.args.get("result_types") or site.args.get("out_types")
                if types is None or not _countable(types.value):
                    return Safety.MANUAL, RESULT_COUNT, cst.Name(name), False
                counted = types.value
            avals_out = f"[None] * {_length(counted, self.ctx.module)}"
            notes.append("results not matched to the primitive's outputs here: ctx.avals_out has one entry per "
                         "explicit result layout")
        replaced_fields = [f"{key}={value}" for key, value in (("avals_in", avals_in), ("avals_out", avals_out)) if value]
        ctx_expr = cst.parse_expression(f"{name}.replace({', '.join(replaced_fields)})") if replaced_fields else cst.Name(name)
        return Safety.SAFE, "; ".join(notes), ctx_expr, avals_out is not None

    def extra_operands(self, site: "Site", rule: LoweringRule) -> Optional[int]:
        """Operands that are not parameters of the lowering rule (None: cannot tell)."""
        operands = site.args.get("operands")
        if operands is None:
            return None
        layouts = site.layout("operand_layouts")
        if layouts is not None:
            counted = self.layouts_beyond_inputs(layouts.value, rule)
            if counted is not None:
                return counted
        value = operands.value
        if rule.vararg is not None:
            rebound = _rebindings(rule.function, rule.vararg)
            if rebound:
                # ``ins = [mlir.ir_constant(v) for v in info] + list(ins)`` (braintaichi): the
                # name no longer holds the inputs. One plain rebinding in the rule's own body,
                # passed as the operands, is read with the inputs its value spells.
                first = rebound[0]
                body = list(rule.function.body.body)
                at = next((i for i, s in enumerate(body) if isinstance(s, cst.SimpleStatementLine) and first in s.body), None)
                call_at = next((i for i, s in enumerate(body) if s is site_statement(self.ctx, operands, rule.function)), None)
                if not (len(rebound) == 1 and isinstance(value, cst.Name) and value.value == rule.vararg
                        and isinstance(first, cst.Assign) and len(first.targets) == 1
                        and isinstance(first.targets[0].target, cst.Name)
                        and at is not None and call_at is not None and at < call_at
                        and not mutated_in(rule.function, rule.vararg)):
                    return None
                value = first.value
        if isinstance(value, cst.Name) and value.value != rule.vararg:
            bound = self.ctx.value_bound_once(value)
            if bound is None or not isinstance(bound, cst.Tuple) and mutated_in(rule.function, value.value):
                # ``ops = [x, u]`` then ``ops.append(c)``: the display no longer counts them.
                return None
            value = bound
        # ``(mlir.ir_constant(size),) + args``: count each concatenated piece.
        extra = 0
        for term in added_terms(value):
            count = self._extra_in(term, rule)
            if count is None:
                return None
            extra += count
        return extra

    def _extra_in(self, value: cst.BaseExpression, rule: LoweringRule) -> Optional[int]:
        """Operands in one piece of an operand list that are not the rule's inputs."""
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in ("list", "tuple") \
                and len(value.args) == 1 and not value.args[0].star:
            value = value.args[0].value  # ``operands=list(args)``
        if isinstance(value, cst.Name) and value.value == rule.vararg:
            return 0
        if not isinstance(value, (cst.List, cst.Tuple)):
            return None
        params = set(rule.operand_params)
        seen: set[str] = set()
        extra = 0
        for element in value.elements:
            if isinstance(element, cst.StarredElement):
                inner = element.value
                if isinstance(inner, cst.Subscript) and self.ctx.module.code_for_node(inner.slice[0]) == "::-1" and len(inner.slice) == 1:
                    inner = inner.value
                if not (isinstance(inner, cst.Name) and inner.value == rule.vararg) or "*" in seen:
                    return None
                seen.add("*")
            elif not (isinstance(element.value, cst.Name) and element.value.value in params - seen):
                # Not an input, or an input passed a second time (``[points, points]``): either
                # way one more operand than ``ctx.avals_in`` has entries.
                extra += 1
            else:
                seen.add(element.value.value)
        return extra

    def layouts_beyond_inputs(self, layouts: cst.BaseExpression, rule: LoweringRule) -> Optional[int]:
        """Layouts written for operands other than the inputs, when the list is one layout per
        ``ctx.avals_in`` entry plus literal ones (``[()] + [... for a in ctx.avals_in]``);
        ``None`` when the expression is not of that form."""
        avals_in = f"{rule.ctx_name}.avals_in"
        per_input = 0
        extra = 0
        for term in added_terms(layouts):
            code = self.ctx.module.code_for_node(term)
            if isinstance(term, (cst.ListComp, cst.GeneratorExp)) and self.ctx.module.code_for_node(term.for_in.iter) == avals_in \
                    and term.for_in.inner_for_in is None:
                per_input += 1
            elif isinstance(term, cst.Call) and avals_in in code and isinstance(term.func, cst.Name) and term.func.value in ("list", "tuple") \
                    and len(term.args) == 1 and isinstance(term.args[0].value, cst.Call) and self.ctx.module.code_for_node(term.args[0].value.func) == "map" \
                    and len(term.args[0].value.args) == 2 and self.ctx.module.code_for_node(term.args[0].value.args[1].value) == avals_in:
                per_input += 1
            elif isinstance(term, (cst.List, cst.Tuple)) and not any(isinstance(e, cst.StarredElement) for e in term.elements) and avals_in not in code:
                extra += len(term.elements)
            else:
                return None
        return extra if per_input == 1 else None

    def _returned_through_name(self, up, replaced, rule: LoweringRule, attr: Optional[str] = None,
                               prefix: Optional[int] = None) -> bool:
        """``out = custom_call(...).results`` then ``return out``, ``out`` bound only there;
        with ``attr="results"``: ``out = custom_call(...)`` then ``return out.results`` (or
        ``out.results[:prefix]``, the first ``prefix`` results)."""
        if not (isinstance(up, cst.Assign) and up.value is replaced and len(up.targets) == 1):
            return False
        target = up.targets[0].target
        if not isinstance(target, cst.Name):
            return False
        bound = self.ctx.value_bound_once(target)
        if bound is not replaced:
            return False
        returns = _Returns(target.value, attr, prefix)
        walk.read(rule.function.body, returns)
        return returns.plain > 0 and returns.other == 0

    def results_match(self, node, site: "Site", rule: LoweringRule, usage: str, replaced) -> bool:
        """Whether explicit result layouts cannot outnumber ``ctx.avals_out``."""
        up = parent(self.ctx, replaced)
        if isinstance(up, cst.Return) and usage in ("results", "list"):
            return True  # jax checks that a rule returns one value per output
        if usage in ("results", "list") and self._returned_through_name(up, replaced, rule):
            return True
        if usage == "op" and self._returned_through_name(up, replaced, rule, attr="results"):
            return True  # the op kept in a name whose results are all the rule returns
        layouts = site.layout("result_layouts")
        if layouts is not None and f"{rule.ctx_name}.avals_out" in self.ctx.module.code_for_node(layouts.value):
            return True
        types = site.args.get("result_types") or site.args.get("out_types")
        if types is None:
            return False
        value = types.value
        mutated = isinstance(value, cst.Name) and mutated_in(rule.function, value.value)
        if isinstance(value, cst.Name):
            value = self.ctx.value_bound_once(value) or value
        count = None if mutated else _count(value)
        if usage == "op" and count is not None and self._returned_through_name(up, replaced, rule, "results", count):
            return True  # ``return out.results[:2]`` of a call with two result types: all of them
        code = self.ctx.module.code_for_node(value)
        if isinstance(value, (cst.ListComp, cst.GeneratorExp, cst.Call)) and f"{rule.ctx_name}.avals_out" in code:
            return True
        return _count(value) == 1


@dataclasses.dataclass
class HelperSite:
    """A builder call inside a plain helper, read and waiting for the helper's callers."""

    node: cst.Call
    site: "Site"
    usage: str
    replaced: cst.CSTNode
    legacy: str
    where: str


@dataclasses.dataclass
class HelperPlan:
    """How a plain helper takes the lowering context: its new parameter, the calls of it
    (each in a lowering rule), and the key linking all the changes."""

    param: str
    calls: list
    key: tuple
    #: Other modules calling the helper (absolute paths), each making its side of ``key``.
    partners: tuple = ()


def _helper_importers(path: str, package: Optional[str], name: str) -> list[str]:
    """Other modules of the package that may use helper ``name`` of this one: those that
    import it by name, read it as an attribute of a module, spell it in a string, or
    (a public name) star-import any module. Only files holding the word are parsed; a
    module defining a helper of its own under that name (``_foo_hlo`` copied from
    module to module) imports nothing."""

    def imports_it(tree: ast.AST) -> bool:
        nodes = list(ast.walk(tree))
        # Names bound to jax's own modules: ``mlir.custom_call`` or ``from jaxlib.hlo_helpers
        # import custom_call`` there is jax's name, not this module's helper.
        jax_names = {(a.asname or a.name).split(".")[0] for node in nodes if isinstance(node, (ast.Import, ast.ImportFrom))
                     and (isinstance(node, ast.Import) or _from_jax(node)) for a in node.names
                     if isinstance(node, ast.ImportFrom) or a.name.split(".")[0] in ("jax", "jaxlib")}

        def root(value: ast.AST) -> Optional[str]:
            while isinstance(value, ast.Attribute):
                value = value.value
            return value.id if isinstance(value, ast.Name) else None

        # ``hasattr(mlir, "custom_call")`` asks about jax's name too.
        about_jax = {id(node.args[1]) for node in nodes if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                     and node.func.id in ("hasattr", "getattr") and len(node.args) >= 2 and root(node.args[0]) in jax_names}
        return any((isinstance(node, ast.ImportFrom) and not _from_jax(node)
                    and any(a.name == name or (a.name == "*" and not name.startswith("_")) for a in node.names))
                   or (isinstance(node, ast.Attribute) and node.attr == name and root(node.value) not in jax_names)
                   or (isinstance(node, ast.Constant) and node.value == name and id(node) not in about_jax)
                   for node in nodes)

    return list(package_files_parsed(path, package, name, imports_it))


def _read_bytes(path: str) -> bytes:
    """The file as it is now (b"" when unreadable): no cache, a run reads what is on disk."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def _only_calls_imported(source: bytes, name: str, stem: str) -> bool:
    """The module binds ``name`` only by ``from <...>.<stem> import name`` at its top and
    reads it only as the callee of calls: nothing else can see the helper's signature."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    local = None
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").rsplit(".", 1)[-1] == stem:
            for alias in node.names:
                if alias.name == name:
                    local = alias.asname or alias.name
    if local is None:
        return False
    callees = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    bindings = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == local:
            if not isinstance(node.ctx, ast.Load) or id(node) not in callees:
                return False
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bindings += sum((a.asname or a.name).split(".")[0] == local for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == local:
            return False
        elif isinstance(node, ast.arg) and node.arg == local:
            return False
        elif isinstance(node, ast.Constant) and node.value == local:
            return False
    return bindings == 1


def _from_jax(node: ast.ImportFrom) -> bool:
    return not node.level and (node.module or "").split(".")[0] in ("jax", "jaxlib")


#: Keywords the migrated builder call of a helper writes itself: a caller passing one
#: through the helper's ``**kwargs`` would give it twice.
_BUILDER_KEYWORDS = frozenset({"result_types", "result_shapes", "operand_layouts", "result_layouts", "operands",
                               "skip_ffi_layout_processing", "api_version", "backend_config", "call_target_name"})

RESULT_COUNT = (
    "explicit result layouts are paired with ctx.avals_out by position and this call's result count "
    "cannot be matched to the primitive's outputs here: if it has as many results as outputs, pass the "
    "layouts as they are; otherwise pass `ctx.replace(avals_out=[...one aval per result...])` as the context"
)

GUIDANCE = (
    "replace it with `jax.ffi.ffi_lowering(name, api_version=<old, 2 by default>, backend_config=..., "
    "result_types=..., operand_layouts=..., result_layouts=...)(ctx, *operands)` inside the lowering rule "
    "(`skip_ffi_layout_processing=True` when the old call gave no layouts)"
)


class Site:
    """The legacy call's arguments, by name, whatever signature it was written in."""

    def __init__(self, legacy: str, args: dict[str, cst.Arg], order: list[str], old_signature: bool,
                 splat: Optional[cst.Arg] = None) -> None:
        self.legacy = legacy
        self.args = args
        self.order = order
        self.old_signature = old_signature
        #: ``**kwargs`` passed on to the builder (read only with ``splat_ok``).
        self.splat = splat

    @classmethod
    def read(cls, node: cst.Call, legacy: str, splat_ok: bool = False) -> "Site | str":
        args: dict[str, cst.Arg] = {}
        order: list[str] = []
        positional = [a for a in node.args if a.keyword is None and not a.star]
        splat = next((a for a in node.args if a.star == "**"), None)
        if any(a.star == "*" for a in node.args) or (splat is not None and not splat_ok) \
                or sum(a.star == "**" for a in node.args) > 1:
            return "its arguments are splatted (*args / **kwargs)"
        old = len(positional) > 1 or keyword(node, "out_types") is not None
        if len(positional) > 1 and legacy == PUBLIC_MLIR:
            return "jax.interpreters.mlir.custom_call takes only the target name positionally"
        for index, arg in enumerate(positional):
            if index >= len(OLD_POSITIONAL):
                return "too many positional arguments"
            args[OLD_POSITIONAL[index]] = arg
            order.append(OLD_POSITIONAL[index])
        for arg in node.args:
            if arg.keyword is None:
                continue
            key = arg.keyword.value
            if key not in KNOWN_KEYWORDS:
                return f"unknown keyword argument {key}="
            args[key] = arg
            order.append(key)
        for key in ("operand_layouts", "result_layouts"):
            value = args[key].value if key in args else None
            elements = value.elements if isinstance(value, (cst.List, cst.Tuple)) else ()
            if any("AffineMap" in (get_full_name_for_node(e.value.func) or "") for e in elements
                   if isinstance(e.value, cst.Call)):
                # jax.ffi's builders read each layout as a minor-to-major int sequence and raise
                # on an AffineMap ("not iterable"); which order it meant is not in the map.
                return (f"its {key} are MLIR AffineMaps, which the FFI builders do not take (they read each "
                        "layout as a minor-to-major int sequence): write each as a tuple, e.g. (1, 0) for a "
                        "row-major matrix")
        if "call_target_name" not in args:
            return "no target name"
        if "operands" not in args:
            return "no operands"
        if "out_types" not in args and "result_types" not in args:
            return "no result types"
        return cls(legacy, args, order, old, splat)

    def layout(self, key: str) -> Optional[cst.Arg]:
        arg = self.args.get(key)
        if arg is None or (isinstance(arg.value, cst.Name) and arg.value.value == "None"):
            return None
        return arg

    def needs(self) -> list[str]:
        needs = ["jax.ffi", BUILD_FFI]
        if self.layout("operand_layouts") is None and self.layout("result_layouts") is None:
            needs.append("skip_ffi_layout_processing")
        return needs

    def api_version_text(self) -> str:
        arg = self.args.get("api_version")
        if arg is None:
            return "2"
        number = _api_version_number(arg.value)
        return str(number) if number is not None else " ".join(cst.Module([]).code_for_node(arg.value).split())

    def result_count(self) -> Optional[int]:
        arg = self.args.get("result_types") or self.args.get("out_types")
        return None if arg is None else _count(arg.value)

    def rewrite(self, call: cst.Call, usage: str, helper: str, ctx_expr: cst.BaseExpression,
                no_result_shapes: bool = False) -> cst.BaseExpression:
        """The replacement for ``call`` (already carrying inner edits, e.g. a serialised config)."""
        current = Site.read(call, self.legacy, splat_ok=self.splat is not None)
        assert isinstance(current, Site)
        originals = [a for a in call.args if not a.star]
        new_args: list[cst.Arg] = []
        for key in current.order:
            arg = current.args[key]
            if key == "operands":
                # The comments after its comma lead the next argument: keep them there, with
                # the previous argument's own and those written about the operands.
                if new_args and isinstance(arg.comma, cst.Comma) and arg is not originals[-1]:
                    new_args[-1] = new_args[-1].with_changes(comma=_merged(new_args[-1].comma, arg.comma))
                continue
            if key == "call_target_name":
                arg = arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT, value=_decoded(arg.value))
                if "api_version" not in current.args:
                    # The target keeps its trailing comment; the comment lines that lead the
                    # next argument go after the inserted api_version.
                    version = cst.Arg(cst.Integer("2"), keyword=cst.Name("api_version"), equal=TIGHT_EQUAL,
                                      comma=_leading_only(arg.comma) if isinstance(arg.comma, cst.Comma) else arg.comma)
                    if isinstance(arg.comma, cst.Comma):
                        arg = arg.with_changes(comma=_trailing_only(arg.comma))
                    taken = [arg, version]
                else:
                    taken = [arg]
                # Now positional, the target goes first (it may have come after keywords).
                new_args[0:0] = taken
                continue
            name = "result_types" if key == "out_types" else key
            if key == "api_version":
                number = _api_version_number(arg.value)
                if number is not None:
                    arg = arg.with_changes(value=cst.Integer(str(number)))
            if arg.keyword is None or arg.keyword.value != name:
                arg = arg.with_changes(keyword=cst.Name(name), equal=TIGHT_EQUAL)
            new_args.append(arg)
        if current.layout("operand_layouts") is None and current.layout("result_layouts") is None:
            new_args = [a for a in new_args if a.keyword is None or a.keyword.value not in ("operand_layouts", "result_layouts")]
            new_args.append(cst.Arg(cst.Name("True"), keyword=cst.Name("skip_ffi_layout_processing"), equal=TIGHT_EQUAL))
        if no_result_shapes and "result_shapes" not in current.args:
            new_args.append(cst.Arg(cst.Name("None"), keyword=cst.Name("result_shapes"), equal=TIGHT_EQUAL))
        if current.splat is not None:
            # The rest go to mlir.custom_call through build_ffi_lowering_function's lowering_args.
            new_args.append(current.splat)
            originals = [a for a in call.args]
        builder = cst.Call(
            func=cst.parse_expression(helper),
            args=_punctuate(new_args, originals),
            whitespace_before_args=call.whitespace_before_args,
        )
        inner = [cst.Arg(ctx_expr)]
        operands = current.args["operands"].value
        if isinstance(operands, (cst.List, cst.Tuple)):
            for element in operands.elements:
                if isinstance(element, cst.StarredElement):
                    inner.append(cst.Arg(element.value, star="*"))
                else:
                    inner.append(cst.Arg(element.value))
        else:
            inner.append(cst.Arg(operands, star="*"))
        inner = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in inner[:-1]] + inner[-1:]
        result: cst.BaseExpression = cst.Call(func=builder, args=inner)
        if usage == "result":
            result = cst.Attribute(value=result, attr=cst.Name("result"))
        return result


#: ``xla_client.ops.CustomCallApiVersion`` members: the enum went with ``xla_client.ops``
#: (jax 0.6.0), ``ffi_lowering`` takes the same numbers as plain integers.
API_VERSION_NUMBERS = {
    "API_VERSION_ORIGINAL": 1,
    "API_VERSION_STATUS_RETURNING": 2,
    "API_VERSION_STATUS_RETURNING_UNIFIED": 3,
    "API_VERSION_TYPED_FFI": 4,
}


def _api_version_number(value: cst.BaseExpression) -> Optional[int]:
    """``2`` for ``<...>.CustomCallApiVersion.API_VERSION_STATUS_RETURNING``, else ``None``."""
    if not isinstance(value, cst.Attribute) or value.attr.value not in API_VERSION_NUMBERS:
        return None
    owner = value.value
    if not isinstance(owner, (cst.Attribute, cst.Name)):
        return None
    owner_name = owner.attr.value if isinstance(owner, cst.Attribute) else owner.value
    return API_VERSION_NUMBERS[value.attr.value] if owner_name == "CustomCallApiVersion" else None


#: Builtins a layout expression may call and still be evaluated twice to the same value.
def _pure(value: cst.BaseExpression) -> bool:
    """An expression of names, literals, displays, comprehensions, arithmetic, attribute and
    subscript reads and calls to a few builtins: reading it twice gives equal values."""
    if isinstance(value, (cst.Name, cst.Integer, cst.SimpleString)):
        return True
    if isinstance(value, (cst.List, cst.Tuple)):
        return all(isinstance(e, cst.Element) and _pure(e.value) for e in value.elements)
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        comp = value.for_in
        return comp.inner_for_in is None and not comp.ifs and _pure(comp.iter) and _pure(value.elt)
    if isinstance(value, cst.BinaryOperation):
        return _pure(value.left) and _pure(value.right)
    if isinstance(value, cst.UnaryOperation):
        return _pure(value.expression)
    if isinstance(value, cst.Attribute):
        return _pure(value.value)
    if isinstance(value, cst.Subscript):
        return _pure(value.value) and all(
            isinstance(el.slice, cst.Index) and _pure(el.slice.value) for el in value.slice)
    if isinstance(value, cst.Call):
        return isinstance(value.func, cst.Name) and value.func.value in PURE_BUILTINS and all(
            not a.star and a.keyword is None and _pure(a.value) for a in value.args)
    return False


def _operand_count(operands: Optional[cst.Arg], ctx, rule: "LoweringRule") -> Optional[str]:
    """``k + len(a) + ...`` for an operand display ``[x, y, *a]`` whose starred parts are
    sized sequences read again from a name: the rule's ``*args``, or a name bound once to
    a slice, a display, a comprehension or ``list(...)``/``tuple(...)`` (an iterator such as
    ``reversed(points)`` has no length, and reading it again would find it spent)."""
    value = operands.value if operands is not None else None
    if not isinstance(value, (cst.List, cst.Tuple)) or not any(isinstance(e, cst.StarredElement) for e in value.elements):
        return None
    fixed, parts = 0, []
    for element in value.elements:
        if not isinstance(element, cst.StarredElement):
            fixed += 1
            continue
        inner = element.value
        if isinstance(inner, cst.Subscript) and all(isinstance(e.slice, cst.Slice) for e in inner.slice):
            inner = inner.value  # ``*points[::-1]``: as many as ``points``
        if not (isinstance(inner, cst.Name) and _sized(inner, ctx, rule)):
            return None
        parts.append(f"len({inner.value})")
    return f"({' + '.join([str(fixed), *parts] if fixed else parts)})"


def _sized(node: cst.BaseExpression, ctx, rule: "LoweringRule", depth: int = 0) -> bool:
    """Whether ``node`` holds a sequence with a length: the rule's ``*args``, a display, a
    comprehension, ``list(...)``/``tuple(...)``, a slice or a sum of such, or a name bound
    once to one (finufft's ``points[:ndim][::-1] + points[ndim:][::-1]``)."""
    if isinstance(node, cst.Name):
        if node.value == rule.vararg:
            return not _rebindings(rule.function, rule.vararg)  # the rule's ``*args``: a tuple
        bound = ctx.value_bound_once(node)
        return bound is not None and depth < 4 and _sized(bound, ctx, rule, depth + 1)
    if isinstance(node, cst.Subscript):
        return all(isinstance(e.slice, cst.Slice) for e in node.slice) and _sized(node.value, ctx, rule, depth)
    if isinstance(node, (cst.List, cst.Tuple, cst.ListComp)):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return _sized(node.left, ctx, rule, depth) and _sized(node.right, ctx, rule, depth)
    func = get_full_name_for_node(node.func) if isinstance(node, cst.Call) else None
    return func in ("list", "tuple") and not ctx.names.is_bound(func)


def _length(value: cst.BaseExpression, module: cst.Module) -> str:
    """``len(<value>)``, or the count of a literal display; a generator expression (which
    the old builders iterated) is listed first."""
    count = _count(value)
    if count is not None:
        return str(count)
    code = module.code_for_node(value)
    if isinstance(value, cst.GeneratorExp):
        code = f"list({code if value.lpar else f'({code})'})"
    return f"len({code})"


def site_statement(ctx, node: cst.CSTNode, function: cst.FunctionDef) -> Optional[cst.CSTNode]:
    """The statement of ``function``'s own body that holds ``node``."""
    for above in reversed(ctx.ancestors_of(node)):
        if ctx.parent_of(above) is function.body:
            return above
    return None


def _rebindings(function: cst.FunctionDef, name: str) -> list[cst.CSTNode]:
    """Statements and expressions in ``function``'s own body (not in nested functions,
    classes or lambdas) that bind ``name`` again, in text order."""
    found: list[cst.CSTNode] = []

    def binds(target: cst.BaseExpression) -> bool:
        if isinstance(target, cst.Name):
            return target.value == name
        if isinstance(target, (cst.Tuple, cst.List)):
            return any(binds(e.value) for e in target.elements)
        if isinstance(target, cst.StarredElement):
            return binds(target.value)
        return False

    class _Binds(OwnScope):
        def visit_Assign(self, node: cst.Assign) -> None:
            if any(binds(t.target) for t in node.targets):
                found.append(node)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if binds(node.target):
                found.append(node)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if binds(node.target):
                found.append(node)

        def visit_For(self, node: cst.For) -> None:
            if binds(node.target):
                found.append(node)

        def visit_AsName(self, node: cst.AsName) -> None:
            if binds(node.name):
                found.append(node)

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            if binds(node.target):
                found.append(node)

        def visit_Del(self, node: cst.Del) -> None:
            if binds(node.target):
                found.append(node)

    walk.read(function.body, _Binds())
    return found


def _countable(value: cst.BaseExpression) -> bool:
    """Whether ``_length`` can count ``value`` without evaluating it a second time: a
    display without starred elements (``[ir.RankedTensorType.get(...), ...]`` has as many
    entries as it shows, whatever they compute), or an expression that reads the same twice."""
    return _count(value) is not None or _pure(value)


def _count(value: cst.BaseExpression) -> Optional[int]:
    """Length of a list/tuple literal without starred elements."""
    if isinstance(value, (cst.List, cst.Tuple)) and all(isinstance(e, cst.Element) for e in value.elements):
        return len(value.elements)
    return None


def _punctuate(args: list[cst.Arg], originals: list[cst.Arg]) -> list[cst.Arg]:
    """Commas and line breaks for a rebuilt argument list, in the style of the original."""
    if not args:
        return args
    last = originals[-1] if originals else None
    first_comma = next((a.comma for a in originals if isinstance(a.comma, cst.Comma) and a is not last), None)
    sep = _clean(first_comma) if first_comma is not None else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    out = []
    for index, arg in enumerate(args):
        if index < len(args) - 1:
            # The original last comma (with the line break before ``)``) may now sit on an
            # argument that is no longer last: it would indent the next one like the paren.
            trailing = last is not None and arg.comma is last.comma
            own = arg.comma if isinstance(arg.comma, cst.Comma) and arg is not last and not trailing else sep
            if trailing and _comment_of(last.comma) is not None and isinstance(sep.whitespace_after, cst.ParenthesizedWhitespace):
                # Its trailing comment stays on its line.
                own = sep.with_changes(whitespace_after=sep.whitespace_after.with_changes(
                    first_line=last.comma.whitespace_after.first_line))
            out.append(arg.with_changes(comma=own, whitespace_after_arg=cst.SimpleWhitespace("")))
        else:
            closing = last.comma if last is not None else cst.MaybeSentinel.DEFAULT
            if last is not None and arg is not last and _comment_of(closing) is not None:
                closing = closing.with_changes(whitespace_after=closing.whitespace_after.with_changes(
                    first_line=cst.TrailingWhitespace()))
            out.append(
                arg.with_changes(
                    comma=closing,
                    whitespace_after_arg=last.whitespace_after_arg if last is not None else cst.SimpleWhitespace(""),
                )
            )
    return out


def _clean(comma: cst.Comma) -> cst.Comma:
    """The separator without the comments that belong to the argument after it."""
    return _leading_only(_trailing_only(comma))


def _comment_of(comma) -> Optional[cst.Comment]:
    """The comment that ends the separator's line, if any."""
    ws = comma.whitespace_after if isinstance(comma, cst.Comma) else None
    return ws.first_line.comment if isinstance(ws, cst.ParenthesizedWhitespace) else None


def _trailing_only(comma: cst.Comma) -> cst.Comma:
    """The separator with the comment that ends its own line, without the comment lines
    that lead the next argument."""
    ws = comma.whitespace_after
    if isinstance(ws, cst.ParenthesizedWhitespace):
        ws = ws.with_changes(empty_lines=[])
    return comma.with_changes(whitespace_after=ws)


def _leading_only(comma: cst.Comma) -> cst.Comma:
    """The separator with the comment lines that lead the next argument only."""
    ws = comma.whitespace_after
    if isinstance(ws, cst.ParenthesizedWhitespace):
        ws = ws.with_changes(first_line=cst.TrailingWhitespace())
    return comma.with_changes(whitespace_after=ws)


def _merged(kept, removed: cst.Comma):
    """The separator after an argument whose next argument was removed: its own trailing
    comment, then every comment line written about the removed one, then those leading the
    argument that now follows (none is lost)."""
    own, gone = (kept.whitespace_after if isinstance(kept, cst.Comma) else None), removed.whitespace_after
    if not isinstance(gone, cst.ParenthesizedWhitespace):
        return removed
    lines = []
    if isinstance(own, cst.ParenthesizedWhitespace):
        lines += [line for line in own.empty_lines if line.comment is not None]
    if gone.first_line.comment is not None:
        lines.append(cst.EmptyLine(indent=gone.indent, whitespace=gone.last_line, comment=gone.first_line.comment))
    lines += list(gone.empty_lines)
    first = own.first_line if isinstance(own, cst.ParenthesizedWhitespace) else gone.first_line.with_changes(
        whitespace=cst.SimpleWhitespace(""), comment=None)
    return removed.with_changes(whitespace_after=gone.with_changes(first_line=first, empty_lines=lines))


def _decoded(value: cst.BaseExpression) -> cst.BaseExpression:
    """``b"name"`` -> ``"name"`` (``jax.ffi`` documents the target name as ``str``)."""
    if isinstance(value, cst.SimpleString) and value.prefix.lower() == "b":
        try:
            text = ast.literal_eval(value.value).decode("ascii")
        except (ValueError, UnicodeDecodeError, SyntaxError):
            return value
        quote = value.quote
        body = value.value[len(value.prefix) + len(quote): -len(quote)]
        if "\\" in body:
            return cst.SimpleString(repr(text))
        return cst.SimpleString(f"{quote}{body}{quote}")
    return value


def _find_call(updated: cst.CSTNode, usage: str) -> cst.Call:
    if isinstance(updated, cst.Call):
        return updated
    if isinstance(updated, cst.Attribute) and isinstance(updated.value, cst.Call):
        return updated.value
    if isinstance(updated, (cst.List, cst.Tuple)):
        return updated.elements[0].value  # type: ignore[return-value]
    raise TypeError(f"unexpected site {type(updated).__name__}")


class _Returns(cst.CSTVisitor):
    """Uses of one name in a function: ``return name`` (``return name.<attr>`` when
    ``attr`` is given) versus anything else."""

    def __init__(self, name: str, attr: Optional[str] = None, prefix: Optional[int] = None) -> None:
        super().__init__()
        self.name = name
        self.attr = attr
        self.prefix = prefix
        self.plain = 0
        self.other = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # nested functions have their own returns

    def visit_Return(self, node: cst.Return) -> bool:
        value = node.value
        if self.prefix is not None:
            # ``return name.results[:prefix]``
            if not (isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Slice)):
                return True
            part = value.slice[0].slice
            if part.lower is not None or part.step is not None or not (
                    isinstance(part.upper, cst.Integer) and part.upper.evaluated_value == self.prefix):
                return True
            value = value.value
        if self.attr is not None:
            if not (isinstance(value, cst.Attribute) and value.attr.value == self.attr):
                return True
            value = value.value
        if isinstance(value, cst.Name) and value.value == self.name:
            self.plain += 1
            return False
        return True

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.other += 1

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        return False


def _only_legacy_imports(stmt: cst.CSTNode, names: set[str], ctx, any_builder: bool = False) -> bool:
    """Every statement in every block of ``stmt`` imports only ``names`` from legacy modules
    (a handler may also try the next builder, or raise when none imports); with
    ``any_builder``, ``jax.interpreters.mlir`` counts as one of them."""
    blocks = [(stmt.body, False)]
    if isinstance(stmt, cst.Try):
        blocks += [(h.body, True) for h in stmt.handlers]
        if stmt.orelse is not None or stmt.finalbody is not None:
            return False
    else:
        orelse = stmt.orelse
        while orelse is not None:
            blocks.append((orelse.body, False))
            orelse = orelse.orelse if isinstance(orelse, cst.If) else None
    for block, handler in blocks:
        if not isinstance(block, cst.IndentedBlock):
            return False
        for line in block.body:
            if handler and isinstance(line, cst.Try):
                if not _only_legacy_imports(line, names, ctx, any_builder):
                    return False
                continue
            if not isinstance(line, cst.SimpleStatementLine):
                return False
            for small in line.body:
                if isinstance(small, cst.Pass) or (handler and isinstance(small, cst.Raise)):
                    continue
                if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar) or small.relative:
                    return False
                module = get_full_name_for_node(small.module) or ""
                if module not in LEGACY_MODULES or (module == "jax.interpreters.mlir" and not any_builder):
                    return False
                for alias in small.names:
                    local = get_full_name_for_node(alias.asname.name if alias.asname else alias.name)
                    if get_full_name_for_node(alias.name) != "custom_call" or local not in names:
                        return False
    return True


def _project_wrapper(path: str, package: Optional[str], module: str, function: str) -> Optional[tuple[str, str, str]]:
    """(where, removed builder, its module's absolute path) when ``module.function`` of
    this project calls a removed builder imported in that module."""
    if not function or module.split(".")[0] in ("", "numpy", "functools", "os", "sys"):
        return None
    candidate = project_module_file(path, package, module, nearby=True)
    if candidate is None or os.path.abspath(candidate) == os.path.abspath(path):
        return None
    legacy = _wrapped_builder(candidate, function)
    if legacy is None:
        return None
    try:
        where = os.path.relpath(candidate, os.path.dirname(os.path.abspath(path)))
    except ValueError:
        where = candidate
    return where, legacy, os.path.abspath(candidate)


@lru_cache(maxsize=256)
def _wrapped_builder(path: str, function: str) -> Optional[str]:
    """The removed builder that module-level function ``function`` in ``path`` calls."""
    tree = project_module_ast(path, b"custom_call")
    return _wrapped_builders(tree).get(function) if tree is not None else None


def _wrapped_builders(tree: ast.Module) -> dict[str, str]:
    """Module-level function -> the removed builder it calls: ``custom_call`` imported from
    a builder's module (also inside a module-level ``try``), or ``mlir.custom_call`` read
    through a binding of ``jax.interpreters.mlir``."""
    builders: dict[str, str] = {}
    modules: set[str] = set()
    top = [n for stmt in tree.body for n in ast.walk(stmt) if not isinstance(stmt, (ast.FunctionDef, ast.ClassDef))]
    for node in top:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in LEGACY_MODULES:
            for alias in node.names:
                if alias.name == "custom_call":
                    builders[alias.asname or alias.name] = LEGACY_MODULES[node.module]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "jax.interpreters":
            modules.update(a.asname or a.name for a in node.names if a.name == "mlir")
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(node):
                func = sub.func if isinstance(sub, ast.Call) else None
                if isinstance(func, ast.Name) and func.id in builders:
                    found.setdefault(node.name, builders[func.id])
                elif isinstance(func, ast.Attribute) and func.attr == "custom_call" \
                        and isinstance(func.value, ast.Name) and func.value.id in modules:
                    found.setdefault(node.name, PUBLIC_MLIR)
    return found


def _helper_callers(path: str, package: Optional[str], source: bytes) -> set:
    """Other modules of the project that import, by name, a module-level function of this
    one wrapping a removed builder (absolute paths)."""
    # Only a module importing a builder, or reading mlir.custom_call, can wrap one: the
    # byte tests keep the index from parsing every module that merely mentions custom_call.
    if not (_may_import_builder(source) or (b".custom_call(" in source and b"jax.interpreters import" in source)):
        return set()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    callers: set = set()
    for name in _wrapped_builders(tree):
        if not name.startswith("_"):  # (a private helper's other importers are not searched for here)
            callers.update(os.path.abspath(p) for p in _helper_importers(path, package, name))
    return callers


def _reexported(path: str, package: Optional[str], qual: str) -> Optional[str]:
    """The legacy builder that project module ``a.b`` binds as ``name``, for ``a.b.name``."""
    module, _, name = qual.rpartition(".")
    candidate = project_module_file(path, package, module)
    return _legacy_binding(candidate, name) if candidate is not None else None


@lru_cache(maxsize=256)
def _legacy_binding(path: str, name: str) -> Optional[str]:
    tree = project_module_ast(path, b"custom_call")
    if tree is None:
        return None
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in LEGACY_MODULES:
            for alias in node.names:
                if alias.name == "custom_call" and (alias.asname or alias.name) == name:
                    found.append(LEGACY_MODULES[node.module])
    if HLO_HELPERS in found:
        return HLO_HELPERS
    return found[0] if found else None


def _inside(ctx, node: cst.CSTNode, outer: cst.CSTNode) -> bool:
    return any(a is outer for a in ancestors(ctx, node))


@dataclasses.dataclass(frozen=True)
class Reexports:
    """What the project index records about one module's re-exported builders."""

    #: Names the module binds to a removed builder at module level (also under an
    #: ``if``/``try``) and never uses itself: re-exports for other modules.
    names: tuple[str, ...] = ()
    #: ``(absolute path, name)`` of each re-export of a removed builder the module imports
    #: from another project module.
    imports: tuple[tuple[str, str], ...] = ()


#: A ``from`` import of a removed builder's module: where a re-export can be.
_BUILDER_IMPORT = re.compile(rb"^[ \t]*from[ \t]+(?:jaxlib\.m?hlo_helpers|jax\.interpreters\.mlir)[ \t]+import\b", re.M)
#: A ``from`` import statement (parenthesised names included) of a relative module.
_RELATIVE_IMPORT = rb"\.+[\w.]*"


def reexport_facts(path: str, package: Optional[str], source: bytes) -> Optional[Reexports]:
    """The :class:`Reexports` of the module at ``path``, None when it has none. Only the
    few modules importing a builder's module are parsed; in the others only the ``from``
    imports of project modules are read."""
    if b"custom_call" not in source:
        return None
    top = package.split(".")[0] if package else None
    names: list[str] = []
    if _may_import_builder(source):
        tree = ast.parse(source)
        # A name listed in a string (``__all__``) is exported on purpose: it stays, reported.
        names = [n for n in _unused_module_level_builders(tree)
                 if f'"{n}"'.encode() not in source and f"'{n}'".encode() not in source]
    imports = []
    if b"from ." in source or (top and f"from {top}".encode() in source):
        for node in _project_imports(path, package, source, top):
            where = _module_file(path, package, "." * node.level + (node.module or ""))
            for alias in node.names:
                if where is not None and alias.name != "*" and _legacy_binding(where, alias.name) is not None:
                    imports.append((where, alias.name))
    if not names and not imports:
        return None
    return Reexports(tuple(names), tuple(dict.fromkeys(imports)))


def _project_imports(path: str, package: Optional[str], source: bytes, top: Optional[str]) -> list:
    """The ``from`` imports of project modules (relative, or under package ``top``) that
    import a removed builder's module themselves, each statement read on its own: a module
    holding one that cannot be read this way is not recognised as an importer, so the
    re-export it uses stays."""
    module = _RELATIVE_IMPORT + (rb"|" + re.escape(top.encode()) + rb"(?:\.[\w.]*)?" if top else b"")
    # Led by the literal ``from`` (no line anchor), which the pattern engine finds fast; the
    # names are read only after the module proves to import a builder.
    pattern = re.compile(rb"from[ \t]+(" + module + rb")[ \t]+import")
    found = []
    for match in pattern.finditer(source):
        where = _module_file(path, package, match.group(1).decode())
        if where is None or not _imports_builder(where):
            continue
        names = _IMPORTED_NAMES.match(source, match.end())
        try:
            statement = ast.parse(match.group(0) + (names.group(0) if names else b"")).body[0]
        except (SyntaxError, ValueError, IndexError):
            continue
        if isinstance(statement, ast.ImportFrom):
            found.append(statement)
    return found


#: What follows ``from m import``: a parenthesised list, or the rest of the line.
_IMPORTED_NAMES = re.compile(rb"[ \t]*(?:\([^)]*\)|[^\n]*)")


def _module_file(path: str, package: Optional[str], module: str) -> Optional[str]:
    """Absolute path of project module ``module`` (``..jax_compat``, ``.``, ``pkg.compat``)
    as imported by the module at ``path``; None when it is no other module of the project."""
    if module.strip("."):
        found = defining_file(path, package, module + ".x")
        return found[0] if found is not None else None
    level = len(module)
    if package is None or level > len(package.split(".")):
        return None
    found = project_module_file(path, package, resolve_relative(package, level, ""))  # the package itself
    if found is None or os.path.abspath(found) == os.path.abspath(path):
        return None
    return os.path.abspath(found)


@lru_cache(maxsize=1024)
def _imports_builder(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return _may_import_builder(fh.read())
    except OSError:
        return False


def _may_import_builder(source: bytes) -> bool:
    # The byte tests first: the multi-line pattern is slow on large modules.
    return ((b"hlo_helpers" in source or b"interpreters.mlir import" in source)
            and _BUILDER_IMPORT.search(source) is not None)


def _unused_module_level_builders(tree: ast.Module) -> list[str]:
    found: list[str] = []

    def visit(body: list) -> None:
        for stmt in body:
            if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module in LEGACY_MODULES:
                found.extend(a.asname or a.name for a in stmt.names if a.name == "custom_call")
            elif isinstance(stmt, ast.If):
                visit(stmt.body)
                visit(stmt.orelse)
            elif isinstance(stmt, ast.Try):
                visit(stmt.body)
                for handler in stmt.handlers:
                    visit(handler.body)
                visit(stmt.orelse)
                visit(stmt.finalbody)

    visit(tree.body)
    if not found:
        return []
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return sorted(set(found) - used)


def reexport_decided(ctx, local: str) -> bool:
    """Whether custom-call-api decides on ``local`` as a re-export of this module (deleted,
    or kept and reported): it does in a run with the project index and every rule."""
    project = ctx.options.project
    if project is None or not ctx.options.every_rule:
        return False
    facts = project.of(CustomCallApi.name).get(os.path.abspath(ctx.path))
    return facts is not None and local in facts.names


@dataclasses.dataclass
class Shim:
    """A module-level function forwarding ``*args, **kwargs`` to a removed builder."""

    function: Optional[cst.FunctionDef]
    legacy: str
    #: Its calls in this module, and the builder calls in its body.
    calls: list = dataclasses.field(default_factory=list)
    inner: list = dataclasses.field(default_factory=list)

    @property
    def where(self) -> str:
        return self.legacy.rsplit(".", 1)[0] + ".custom_call"


def _context_deletion(node: cst.CSTNode, ctx, name: str = "ctx") -> Optional[cst.SimpleStatementLine]:
    """The ``del <name>`` statement at the top of the function holding ``node``, when it is
    the only use of its positional parameter ``name``."""
    function = next((a for a in ancestors(ctx, node) if isinstance(a, cst.FunctionDef)), None)
    if function is None:
        return None
    params = [*function.params.posonly_params, *function.params.params]
    param = next((p for p in params if p.name.value == name), None)
    if param is None:
        return None
    found = _deletions_of(function, name)
    if len(found) != 1:
        return None
    scope = ctx.scopes.get(param.name)
    accesses = [a for assignment in scope.assignments[name] for a in assignment.references] if scope is not None else None
    if accesses is None:
        return None
    if any(not _inside(ctx, a.node, found[0]) for a in accesses):
        return None
    return found[0]


def _deletions_of(function: cst.FunctionDef, name: str) -> list[cst.SimpleStatementLine]:
    """``del <name>`` statements of the function's own body."""
    return [stmt for stmt in function.body.body if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Del) and isinstance(stmt.body[0].target, cst.Name)
            and stmt.body[0].target.value == name]
