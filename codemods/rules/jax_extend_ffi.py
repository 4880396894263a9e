"""``jax-extend-ffi``: ``jax.extend.ffi`` moved to ``jax.ffi``.

Legacy form
    ``from jax.extend import ffi``, ``from jax.extend.ffi import ffi_call``,
    ``import jax.extend.ffi as jffi``, ``import jax.extend as jex; jex.ffi.ffi_call(...)``
    and ``jax.extend.ffi.ffi_lowering(...)`` (public from jax 0.4.31).

Removed
    Deprecated in jax 0.5.0; its symbols were removed in 0.7.0 and the module in 0.8.0:
    ``ImportError: cannot import name 'ffi' from 'jax.extend'`` /
    ``AttributeError: module 'jax.extend' has no attribute 'ffi'``.

Replacement (minimum jax 0.5.0)
    ``jax.ffi``, which holds the same functions (``ffi_call``, ``ffi_lowering``,
    ``register_ffi_target``, ``pycapsule``, ``include_dir``). Imports are rewritten in
    place so local names stay as they were; attribute chains through ``jax.extend`` are
    respelt through ``jax.ffi`` and an import made unused is removed. For a target jax
    below 0.7.0 the legacy spelling still works and is left alone.

What the kernel receives afterwards
    Exactly what it received before: ``jax.extend.ffi`` re-exported the functions that
    ``jax.ffi`` exports, so the lowered ``custom_call`` is identical (checked by
    ``make test-compat`` against jax 0.6.2). The change is ``safe``. Sites inside a
    compatibility guard (``try/except ImportError``, a version test, ``hasattr``) are
    left as they are and reported.

Before::

    from jax.extend import ffi
    ffi.register_ffi_target("rms_norm", ffi.pycapsule(lib.RmsNorm), platform="cpu")

After::

    from jax import ffi
    ffi.register_ffi_target("rms_norm", ffi.pycapsule(lib.RmsNorm), platform="cpu")
"""

from __future__ import annotations

from typing import Union

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods.rule import Rule, Safety
from codemods.rules._shared import drop_binding_if_unused, import_without, jax_fallback_guard

LEGACY = "jax.extend.ffi"
MODERN = "jax.ffi"
#: The legacy symbols still work on these targets; jax.ffi exists from 0.5.0.
REMOVED = (0, 7, 0)
MINIMUM = (0, 5, 0)


class JaxExtendFfi(Rule):
    __doc__ = __doc__
    name = "jax-extend-ffi"
    summary = "Move jax.extend.ffi imports and references to jax.ffi (jax >= 0.5.0)."
    # `jex.ffi.ffi_call` through `from jax import numpy as jnp, extend as jex` spells no
    # `jax.extend`: `.ffi` is in every use of the module through another name.
    triggers = (b"jax.extend", b"import extend", b"extend import", b".ffi")
    statement_scoped = True

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.active = ctx.options.target_jax >= REMOVED
        self.import_depth = 0

    # Names inside an import statement are handled by the import's own edit.
    def visit_Import(self, node: cst.Import) -> None:
        self.import_depth += 1
        if self.active:
            self._import(node)

    def leave_Import(self, original_node: cst.Import) -> None:
        self.import_depth -= 1

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.import_depth += 1
        if self.active:
            self._import_from(node)

    def leave_ImportFrom(self, original_node: cst.ImportFrom) -> None:
        self.import_depth -= 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not self.active or self.import_depth:
            return
        if node.attr.value != "ffi" or self.ctx.qualified_name(node) != LEGACY:
            return
        if self._guarded(node):
            return
        dotted = get_full_name_for_node(node) or ""
        replacement = self.ctx.name_for(MODERN, site=node)
        head = dotted.split(".")[0]
        drop_binding_if_unused(self.ctx, head)
        self.report(
            node,
            Safety.SAFE,
            f"`{dotted}` was removed in jax 0.7.0; the same functions live in jax.ffi (jax >= 0.5.0)",
            lambda _node: cst.parse_expression(replacement),
        )

    # -- imports ---------------------------------------------------------------
    def _import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = get_full_name_for_node(alias.name) or ""
            if full != LEGACY and not full.startswith(LEGACY + "."):
                continue
            if self._guarded(node):
                return
            new_name = MODERN + full[len(LEGACY):]

            def edit(updated: cst.CSTNode, full=full, new_name=new_name) -> cst.CSTNode:
                assert isinstance(updated, cst.Import)
                names = [
                    a.with_changes(name=cst.parse_expression(new_name))
                    if (get_full_name_for_node(a.name) or "") == full
                    else a
                    for a in updated.names
                ]
                return updated.with_changes(names=names)

            self.report(
                node,
                Safety.SAFE,
                f"module {full} was removed in jax 0.8.0 (its functions in 0.7.0); import {new_name} (jax >= 0.5.0)",
                edit,
            )

    def _import_from(self, node: cst.ImportFrom) -> None:
        if node.relative or isinstance(node.names, cst.ImportStar):
            if not node.relative and get_full_name_for_node(node.module) == LEGACY:
                self.report(node, Safety.MANUAL, "`from jax.extend.ffi import *`: import the names you use from jax.ffi (jax >= 0.5.0)")
            return
        module = get_full_name_for_node(node.module) or ""
        if module == LEGACY or module.startswith(LEGACY + "."):
            if self._guarded(node):
                return
            new_module = MODERN + module[len(LEGACY):]
            self.report(
                node,
                Safety.SAFE,
                f"{module} was removed in jax 0.7.0; import from {new_module} (jax >= 0.5.0)",
                lambda updated: updated.with_changes(module=cst.parse_expression(new_module)),
            )
            return
        if module != "jax.extend":
            return
        ffi_aliases = [a for a in node.names if get_full_name_for_node(a.name) == "ffi"]
        if not ffi_aliases or self._guarded(node):
            return
        if len(ffi_aliases) == len(node.names):
            self.report(
                node,
                Safety.SAFE,
                "jax.extend.ffi was removed in jax 0.8.0 (its functions in 0.7.0); import ffi from jax (jax >= 0.5.0)",
                lambda updated: updated.with_changes(module=cst.Name("jax")),
            )
            return
        for alias in ffi_aliases:
            asname = get_full_name_for_node(alias.asname.name) if alias.asname else None
            self.ctx.add_import("jax", "ffi", asname, site=node)
        self.report(
            node,
            Safety.SAFE,
            "jax.extend.ffi was removed in jax 0.8.0 (its functions in 0.7.0); ffi is now imported from jax (jax >= 0.5.0)",
            _without_ffi,
        )

    # -- helpers -------------------------------------------------------------
    def _guarded(self, node: cst.CSTNode) -> bool:
        guard = jax_fallback_guard(self.ctx, node)
        if guard is None:
            return False
        self.report(
            node,
            Safety.MANUAL,
            f"jax.extend.ffi inside {guard} left as is: that branch serves jax releases "
            f"before {'.'.join(map(str, MINIMUM))}, where jax.ffi does not exist; drop it with support for them",
        )
        return True


def _without_ffi(updated: cst.CSTNode) -> Union[cst.CSTNode, cst.RemovalSentinel]:
    assert isinstance(updated, cst.ImportFrom)
    return import_without(updated, lambda a: get_full_name_for_node(a.name) == "ffi")
