"""Everything a rule may ask about, and do to, the one file it is running on."""

from __future__ import annotations

import dataclasses
import re
from typing import Optional

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, ScopeProvider

from codemods import positions
from codemods.names import NameResolver, iter_statements
from codemods.rule import Change, Edit, Safety


#: Submodules that importing their package loads (so ``import jax`` is enough to spell
#: ``jax.ffi.ffi_lowering``), on every jax release the rules target (0.5 and later).
LOADED_BY_PARENT = frozenset(
    {
        "jax.ffi", "jax.numpy", "jax.lax", "jax.core", "jax.tree_util", "jax.errors", "jax.dtypes",
        "jax.random", "jax.sharding", "jax.interpreters", "jax.interpreters.mlir",
        "jax.interpreters.ad", "jax.interpreters.batching", "jax.interpreters.partial_eval",
    }
)


@dataclasses.dataclass(frozen=True)
class Options:
    """How rules behave on this run (shared by every file)."""

    #: jax release the rewritten code must work on, e.g. ``(0, 10, 2)``.
    target_jax: tuple[int, ...] = (0, 10, 2)
    unsafe_fixes: bool = False
    #: Write manual findings as ``# TODO(ccmigrate): ...`` comments at their sites.
    annotate: bool = False


@dataclasses.dataclass
class Finding:
    change: Change
    node: cst.CSTNode
    edit: Optional[Edit]
    #: A ``# ccmigrate: ignore[...]`` comment on the site's lines switched it off.
    suppressed: bool = False
    #: Imports the rule asked for while preparing this finding's edit, so that a
    #: declined finding (``ccmigrate review``) does not leave an unused import behind.
    imports: tuple[tuple[str, Optional[str], Optional[str]], ...] = ()


class FileContext:
    """Per-file state handed to every rule: names, scopes, reports, pending imports."""

    def __init__(
        self,
        path: str,
        source: bytes,
        module: cst.Module,
        options: Options,
        package: Optional[str] = None,
    ) -> None:
        self.path = path
        self.source = source
        self.module = module
        self.options = options
        self.package = package
        # The tree is never mutated, so the wrapper may share it instead of copying.
        self.wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self.names = NameResolver(self.wrapper, source, package)
        self.findings: list[Finding] = []
        self._codemod_context = None
        self.helpers: dict[str, str] = {}
        self._scopes: Optional[dict] = None
        self._parents: Optional[dict] = None
        self._ancestors: dict[cst.CSTNode, tuple[cst.CSTNode, ...]] = {}
        self._partial_scopes: dict[cst.CSTNode, dict] = {}
        self._stubbed: dict[cst.CSTNode, cst.CSTNode] = {}  # signature-only stand-in -> original
        self._pending_imports: set[tuple[str, Optional[str], Optional[str]]] = set()
        self._unreported_imports: list[tuple[str, Optional[str], Optional[str]]] = []

    @property
    def codemod_context(self):
        """LibCST's codemod context, where its import visitors collect pending work.

        Created on first use: ``libcst.codemod`` pulls in ``libcst.matchers``, about a
        second of import time that a run which changes nothing should not pay.
        """
        if self._codemod_context is None:
            from libcst.codemod import CodemodContext

            self._codemod_context = CodemodContext(filename=self.path, full_package_name=self.package)
        return self._codemod_context

    @property
    def has_pending_imports(self) -> bool:
        return self._codemod_context is not None

    # -- reporting -----------------------------------------------------------
    def report(
        self,
        rule: str,
        node: cst.CSTNode,
        safety: Safety,
        message: str,
        edit: Optional[Edit] = None,
        *,
        kernel_receives: Optional[str] = None,
    ) -> Change:
        change = Change(
            rule=rule,
            safety=safety,
            message=message,
            before=self.module.code_for_node(node),
            kernel_receives=kernel_receives,
        )
        imports, self._unreported_imports = tuple(self._unreported_imports), []
        self.findings.append(Finding(change, node, None if safety is Safety.MANUAL else edit, imports=imports))
        return change

    # -- names -------------------------------------------------------------
    def qualified_name(self, node: cst.CSTNode) -> Optional[str]:
        return self.names.qualified_name(node)

    def name_for(self, qualified: str) -> str:
        """Source text naming ``qualified`` here, importing it if nothing binds it yet.

        Reuses an existing binding (``import json as js`` gives ``js.dumps``); otherwise
        schedules ``import <top module>`` once and spells the full dotted path.
        """
        module, _, attr = qualified.rpartition(".")
        found = self.names.binding_and_prefix(qualified)
        if found is not None:
            text, bound = found
            if module and module != bound and module.startswith(bound + ".") and not self._loaded_with(bound, module):
                # ``import jax`` does not load ``jax.extend.core``: import it explicitly.
                self.add_import(module)
            return text
        top = qualified.split(".")[0]
        if self.names.is_bound(top) and not self.names.binding_for(top):
            # The plain name is taken by something else: import under a private alias.
            alias = "_ccm_" + module.replace(".", "_")
            self.add_import(module, asname=alias)
            return f"{alias}.{attr}"
        self.add_import(top)
        return qualified

    def _loaded_with(self, bound: str, module: str) -> bool:
        pending = any(key[0] == module or key[0].startswith(module + ".") for key in self._pending_imports)
        return pending or module in LOADED_BY_PARENT or self.names.imports_module(module)

    def expr_for(self, qualified: str) -> cst.BaseExpression:
        return cst.parse_expression(self.name_for(qualified))

    def add_import(self, module: str, obj: Optional[str] = None, asname: Optional[str] = None) -> None:
        key = (module, obj, asname)
        # Rules prepare an edit's names before reporting it: the finding reported next owns them.
        self._unreported_imports.append(key)
        if key not in self._pending_imports:
            self._pending_imports.add(key)
            from libcst.codemod.visitors import AddImportsVisitor

            AddImportsVisitor.add_needed_import(self.codemod_context, module, obj, asname)

    def remove_import_if_unused(self, module: str, obj: Optional[str] = None, asname: Optional[str] = None) -> None:
        """Drop ``import module`` / ``from module import obj`` once nothing uses it."""
        from libcst.codemod.visitors import RemoveImportsVisitor

        RemoveImportsVisitor.remove_unused_import(self.codemod_context, module, obj, asname)

    def add_helper(self, name: str, code: str) -> str:
        """Ensure a module-level helper ``def name`` exists; returns the name to call."""
        self.helpers.setdefault(name, code)
        return name

    # -- scopes (computed lazily: most files never need them) ---------------
    @property
    def scopes(self) -> dict:
        if self._scopes is None:
            self._scopes = dict(self.wrapper.resolve(ScopeProvider))
        return self._scopes

    @property
    def parents(self) -> dict:
        """Parent of every node (a walk of the whole tree: prefer :meth:`ancestors_of`)."""
        if self._parents is None:
            self._parents = dict(self.wrapper.resolve(ParentNodeProvider))
        return self._parents

    # -- positions (computed for the nodes that need them, in one partial pass) ----
    def locate(self, nodes) -> dict:
        """``CodeRange`` of each of ``nodes``; also remembers their ancestors."""
        ranges, ancestors = positions.locate(self.module, nodes)
        self._ancestors.update(ancestors)
        return ranges

    def ancestors_of(self, node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
        """Nodes above ``node``, outermost (the module) first."""
        if node not in self._ancestors:
            self.locate([node])
        return self._ancestors.get(node, ())

    def paths_to(self, nodes) -> Optional[set]:
        """Every node on the way from the module to ``nodes``; ``None`` if one is unknown."""
        found: set = set()
        for node in nodes:
            if node not in self._ancestors:
                return None
            found.add(node)
            found.update(self._ancestors[node])
        return found

    def value_bound_once(self, name: cst.Name) -> Optional[cst.BaseExpression]:
        """The expression a bare name was bound to, when it is bound exactly once.

        Only plain ``name = value`` / ``name: T = value`` statements count; a name that is
        also a parameter, imported, assigned twice, augmented or bound in a loop gives
        ``None`` (its type cannot be proven statically).
        """
        scope = self.scope_of(name)
        if scope is None:
            return None
        assignments = list(scope[name.value])
        if len(assignments) != 1:
            return None
        target = getattr(assignments[0], "node", None)
        if not isinstance(target, cst.Name):
            return None
        return _value_assigned_to(getattr(assignments[0].scope, "node", self.module), target)

    def class_def(self, name: cst.Name) -> Optional[cst.ClassDef]:
        """The ``class`` statement a name refers to, when it is defined in this module."""
        scope = self.scope_of(name)
        if scope is None:
            return None
        assignments = list(scope[name.value])
        if len(assignments) == 1 and isinstance(getattr(assignments[0], "node", None), cst.ClassDef):
            node = assignments[0].node
            return self._stubbed.get(node, node)
        return None

    def scope_of(self, node: cst.CSTNode):
        """The LibCST ``Scope`` ``node`` is in, analysing as little of the module as exact.

        Scope analysis of a whole module costs several parses. The names visible from a
        statement depend on the module-level statements and on the top-level statement
        holding it, but on other functions and classes only through the names they
        define (and through ``global`` statements inside them). So the analysis runs on
        the module cut down to the statement holding ``node`` and the bindings of the
        other top-level statements: other ``def``/``class`` statements reduced to their
        signature, assignments to their targets (``x = ...``), imports as they are. A
        module that says ``global`` anywhere, or binds the name with ``:=``, is analysed
        whole.
        """
        name = node.value if isinstance(node, cst.Name) else None
        if self._scopes is not None or name is None or b"global" in self.source or self._walrus_binds(name):
            return self.scopes.get(node)
        chain = self.ancestors_of(node)
        if len(chain) < 2:
            return self.scopes.get(node)
        top = chain[1]
        scopes = self._partial_scopes.get(top)
        if scopes is None:
            reduced = _reduced_module(self.module, top, self._stubbed)
            scopes = self._partial_scopes[top] = dict(MetadataWrapper(reduced, unsafe_skip_copy=True).resolve(ScopeProvider))
        return scopes.get(node)

    def _walrus_binds(self, name: str) -> bool:
        return re.search(rb"(?<![.\w])" + re.escape(name.encode()) + rb"\s*:=", self.source) is not None


def _value_assigned_to(scope_node: cst.CSTNode, target: cst.Name) -> Optional[cst.BaseExpression]:
    """The value of the plain ``target = value`` / ``target: T = value`` statement.

    Searches the statements of the scope that binds ``target`` (never expressions), which
    costs far less than computing every node's parent.
    """
    if isinstance(scope_node, cst.Module):
        body = scope_node.body
    elif isinstance(scope_node, (cst.FunctionDef, cst.ClassDef)) and isinstance(scope_node.body, cst.IndentedBlock):
        body = scope_node.body.body
    elif isinstance(scope_node, (cst.FunctionDef, cst.ClassDef)) and isinstance(scope_node.body, cst.SimpleStatementSuite):
        body = [cst.SimpleStatementLine(body=scope_node.body.body)]
    else:
        return None  # a lambda or comprehension binds no plain assignment
    for stmt, _ in iter_statements(body, True):
        if isinstance(stmt, cst.Assign):
            if len(stmt.targets) == 1 and stmt.targets[0].target is target:
                return stmt.value
        elif isinstance(stmt, cst.AnnAssign) and stmt.target is target:
            return stmt.value
    return None


_STUB_BODY = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Expr(cst.Ellipsis())])])


def _reduced_module(module: cst.Module, keep: cst.CSTNode, stubbed: dict) -> cst.Module:
    """``module`` with ``keep`` whole and only the name bindings of everything else."""
    body = []
    for stmt in module.body:
        if stmt is not keep:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                stub = stmt.with_changes(body=_STUB_BODY)
                stubbed[stub] = stmt
                stmt = stub
            elif isinstance(stmt, cst.SimpleStatementLine):
                smalls = [_binding_only(small) for small in stmt.body]
                smalls = [small for small in smalls if small is not None]
                if not smalls:
                    continue
                stmt = stmt.with_changes(body=smalls)
            # Compound statements (if/try/with/for at module level) are kept whole.
        body.append(stmt)
    return module.with_changes(body=body)


def _binding_only(small: cst.BaseSmallStatement) -> Optional[cst.BaseSmallStatement]:
    """The part of a simple statement that binds names (the same target nodes), or None."""
    if isinstance(small, (cst.Assign, cst.AugAssign)):
        return small.with_changes(value=cst.Ellipsis())
    if isinstance(small, cst.AnnAssign):
        return small.with_changes(value=None if small.value is None else cst.Ellipsis(), annotation=cst.Annotation(cst.Name("object")))
    if isinstance(small, (cst.Import, cst.ImportFrom, cst.Del, cst.Global, cst.Nonlocal)):
        return small
    return None
