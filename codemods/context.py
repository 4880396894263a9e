"""Everything a rule may ask about, and do to, the one file it is running on."""

from __future__ import annotations

import ast
import dataclasses
import re
from typing import Mapping, Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, ScopeProvider

from codemods import positions, walk
from codemods.names import NameResolver, iter_statements
from codemods.rule import Change, Edit, LinkKey, Safety


#: Lower-case dotted names under jax that are objects, not modules (``import`` fails).
NOT_MODULES = frozenset({"jax.config"})


def _module_path(dotted: str) -> bool:
    """Whether ``dotted`` reads as a module path (``jax.extend.backend``), not a class or
    object on one (``jax.interpreters.ad.Zero``, ``jax.config``)."""
    return dotted not in NOT_MODULES and all(part.islower() or part.startswith("_") for part in dotted.split("."))


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
class Project:
    """What the rules' index hooks learnt about the files of a run, before any changed.

    A change that needs a matching change in another file (a translation rule converted
    where it is defined, registered as a lowering rule where it is registered) is linked
    to the other file's under one key (``FileContext.link``); the engine keeps a linked
    change only when every file taking part made its own, and otherwise migrates them
    again with the key in ``vetoed``.
    """

    #: rule name -> absolute path -> that rule's facts about the file.
    facts: Mapping[str, Mapping[str, object]] = dataclasses.field(default_factory=dict)
    #: Absolute paths of every file this run migrates.
    files: frozenset = frozenset()
    #: key -> (absolute path of the file at fault, why): the linked changes not to make.
    vetoed: Mapping[LinkKey, tuple[str, str]] = dataclasses.field(default_factory=dict)

    def of(self, rule: str) -> Mapping[str, object]:
        return self.facts.get(rule, {})


@dataclasses.dataclass(frozen=True)
class Claim:
    """One file's side of a linked decision: the other files taking part, and why this
    file cannot make its change (``None`` when it made it)."""

    partners: frozenset
    problem: Optional[str] = None
    #: Whether any change linked to the decision went into the new text.
    made: bool = False


@dataclasses.dataclass(frozen=True)
class Options:
    """How rules behave on this run (shared by every file)."""

    #: jax release the rewritten code must work on, e.g. ``(0, 10, 2)``.
    target_jax: tuple[int, ...] = (0, 10, 2)
    unsafe_fixes: bool = False
    #: Write manual findings as ``# TODO(ccmigrate): ...`` comments at their sites.
    annotate: bool = False
    #: Every rule runs (no ``--select``/``--ignore``): only then can the engine tell that
    #: no rule migrates a use.
    every_rule: bool = True
    #: The run's project index; ``None`` when files are migrated one at a time.
    project: Optional[Project] = dataclasses.field(default=None, compare=False)


_UNKNOWN = object()

#: Packages imported together: a module that imports jax lazily imports jaxlib so too.
_FAMILIES = (frozenset({"jax", "jaxlib"}),)


def import_line(stmt: cst.CSTNode) -> bool:
    """A statement line made of imports alone (``import a; from b import c``)."""
    return isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _family(module: str) -> frozenset:
    root = module.lstrip(".").split(".")[0]
    return next((f for f in _FAMILIES if root in f), frozenset({root}))


def _last_import_of(body, family: frozenset) -> Optional[int]:
    """Index of the last statement of ``body`` that imports ``family`` (directly, or in
    an if/try of it), or ``None``."""
    last = None
    for index, stmt in enumerate(body):
        for small, direct in iter_statements([stmt], True):
            if not direct:
                continue  # a nested function's or class's own import
            if isinstance(small, cst.Import):
                modules = [get_full_name_for_node(a.name) or "" for a in small.names]
            elif isinstance(small, cst.ImportFrom) and not small.relative:
                modules = [get_full_name_for_node(small.module) or ""]
            else:
                continue
            if any(_family(m) == family for m in modules):
                last = index
    return last


class ParentMap:
    """Read-only ``node -> parent`` view of a :class:`FileContext` (``get`` as on a dict)."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx: "FileContext") -> None:
        self._ctx = ctx

    def get(self, node: cst.CSTNode, default: Optional[cst.CSTNode] = None) -> Optional[cst.CSTNode]:
        found = self._ctx.parent_of(node)
        return default if found is None else found

    def __getitem__(self, node: cst.CSTNode) -> cst.CSTNode:
        found = self._ctx.parent_of(node)
        if found is None:
            raise KeyError(node)
        return found

    def __contains__(self, node: object) -> bool:
        return self._ctx.parent_of(node) is not None


@dataclasses.dataclass
class Finding:
    change: Change
    node: cst.CSTNode
    edit: Optional[Edit]
    #: A ``# ccmigrate: ignore[...]`` comment on the site's lines switched it off.
    suppressed: bool = False
    #: Imports the rule asked for while preparing this finding's edit, so that a
    #: declined finding (``ccmigrate review``) does not leave an unused import behind.
    imports: tuple[tuple, ...] = ()
    #: The linked decision this change is one side of (see :class:`Project`).
    link: Optional[LinkKey] = None
    #: The findings this one exists for (the manual sites a kept import serves): when
    #: the rewrite removes them all, this one goes from the report with them.
    serves: tuple = ()


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
        #: Ids of findings the last rewrite made moot (see engine._moot_findings).
        self.moot: set[int] = set()
        self._codemod_context = None
        self.helpers: dict[str, str] = {}
        #: Helpers defined even when this module never reads them (another module may
        #: import them from it, as it imported the name they replace).
        self.exported_helpers: set[str] = set()
        self._scopes: Optional[dict] = None
        # Parents are recorded by the engine's walk (codemods.walk) as it reaches each
        # node; a question about a node it has not reached yet completes the map first.
        self._parent_of: dict = {}
        self._parents_complete = False
        # Whether the parents below whitespace and punctuation are recorded too (the
        # engine's walk skips them: no rule looks there).
        self._trivia_complete = True
        self._unwalked: list = []
        self._module_bindings: dict[str, tuple[bool, list]] = {}
        #: The engine's walk while it runs, so a question can be answered from the
        #: subtree being visited rather than the whole module.
        self.walk = None
        self._recorded_below: set = set()
        self._partial_scopes: dict[cst.CSTNode, dict] = {}
        self._assigned: Optional[frozenset] = None
        self._aliases: Optional[frozenset] = None
        self._stubbed: dict[cst.CSTNode, cst.CSTNode] = {}  # signature-only stand-in -> original
        #: ``(module, obj, asname)`` for module level, ``(..., function)`` for an import
        #: that goes inside ``function``.
        self._pending_imports: set[tuple] = set()
        #: An import statement inside a block (an ``if`` branch, a function) that an edit
        #: split -> the imports of the names it moved, to go right after it.
        self.beside_imports: dict[cst.CSTNode, list[tuple[str, Optional[str], Optional[str]]]] = {}
        #: The node whose edit the engine is applying (where the names it asks for go).
        self.site: Optional[cst.CSTNode] = None
        self._lazy: dict[frozenset, bool] = {}
        #: function -> index in its body of the first statement that needs an import added there.
        self._first_site: dict[cst.CSTNode, int] = {}
        #: Plain dotted imports (``import jax.lib.xla_client``) to drop once nothing spells
        #: the module: LibCST counts any use of the root (``jax.ffi``) as a use of them.
        self.dotted_removals: set[str] = set()
        self._unreported_imports: list[tuple] = []
        self._statement_index: object = _UNKNOWN
        #: Python's own tree of ``source``, when the engine parsed it first (it saves the
        #: statement index a second parse); dropped once that index is made.
        self.python_tree: Optional[ast.Module] = None
        #: This file's side of each linked decision it takes part in.
        self.claims: dict[LinkKey, Claim] = {}

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
        link: Optional[LinkKey] = None,
    ) -> Change:
        change = Change(
            rule=rule,
            safety=safety,
            message=message,
            before=positions.code_for_node(self.module, node),
            kernel_receives=kernel_receives,
        )
        imports, self._unreported_imports = tuple(self._unreported_imports), []
        self.findings.append(Finding(change, node, None if safety is Safety.MANUAL else edit, imports=imports, link=link))
        return change

    def link(self, key: LinkKey, partners, problem: Optional[str] = None) -> None:
        """Take part in the linked decision ``key`` with the files ``partners`` (absolute
        paths): the changes reported with ``link=key`` stand only if each partner makes
        its own; ``problem`` says why this file makes none."""
        claim = self.claims.get(key)
        partners = frozenset(partners) | (claim.partners if claim else frozenset())
        self.claims[key] = Claim(partners, problem or (claim.problem if claim else None))

    # -- names -------------------------------------------------------------
    def qualified_name(self, node: cst.CSTNode) -> Optional[str]:
        return self.names.qualified_name(node)

    def qualified_names(self, node: cst.CSTNode) -> frozenset:
        return self.names.qualified_names(node)

    def name_for(self, qualified: str, site: Optional[cst.CSTNode] = None) -> str:
        """Source text naming ``qualified`` at ``site``, importing it if nothing binds it yet.

        Reuses an existing binding (``import json as js`` gives ``js.dumps``); otherwise
        schedules ``import <top module>`` once and spells the full dotted path. ``site``
        (by default the node whose edit is being applied) is where the name is used: a
        binding an enclosing function made before it counts too, and in a module that
        imports the package only inside functions the import goes into the function.
        """
        site = site if site is not None else self.site
        module, _, attr = qualified.rpartition(".")
        home = self._import_home(qualified, site)
        found = None if home is not None else self.names.binding_and_prefix(qualified)
        if found is not None and site is not None and self._bound_after(found[0].split(".")[0], site):
            # ``import jax`` only further down a script: at this line the name is not bound
            # yet. ``import jax.ffi`` goes with the imports above and binds it here.
            if module != qualified.split(".")[0]:
                self.add_import(module, site=site)
                return qualified
            alias = "_ccm_" + module.replace(".", "_")
            self.add_import(module, asname=alias, site=site)
            return f"{alias}.{attr}"
        if found is None and site is not None:
            found = self.enclosing_binding(qualified, site)
        if found is not None:
            text, bound = found
            if module and module != bound and module.startswith(bound + ".") and not self._loaded_with(bound, module, home):
                # ``import jax`` does not load ``jax.extend.core``: import it explicitly.
                self.add_import(module, site=site)
            return text
        top = qualified.split(".")[0]
        if self.names.is_bound(top) and not self.names.binding_for(top) and not (home is not None and self._names_package(top)) \
                and not self.names.only_imports_package(top):
            # The plain name is taken by something else: import under a private alias.
            alias = "_ccm_" + module.replace(".", "_")
            self.add_import(module, asname=alias, site=site)
            return f"{alias}.{attr}"
        if module and module != top and _module_path(module) and not self._loaded_with(top, module, home):
            # ``import jax`` does not load ``jax.extend.backend``: ``import jax.extend.backend``
            # binds ``jax`` and loads the module.
            self.add_import(module, site=site)
        else:
            self.add_import(top, site=site)
        return qualified

    def _bound_after(self, local: str, site: cst.CSTNode) -> bool:
        """Every module-level import binding ``local`` comes after the module-level
        statement that runs ``site`` (a site inside a function runs later: never)."""
        if any(isinstance(node, (cst.FunctionDef, cst.Lambda)) for node in self.ancestors_of(site)):
            return False
        bindings = [b for b in self.names.imports if b.local == local and b.top_level]
        order = {id(stmt): i for i, stmt in enumerate(self.module.body)}
        at = order.get(id(self.top_statement(site)))
        if at is None or not bindings:
            return False
        return all(order.get(id(self.top_statement(b.statement)), -1) > at for b in bindings)

    def _names_package(self, top: str) -> bool:
        """Whether every binding of ``top`` in the module is an import of the package
        ``top`` itself: then ``import top`` inside a function changes no other name."""
        bindings = self.names.imports if self.names.is_bound(top) else ()
        return not self.names._maybe_rebound(top) and all(
            b.qualified == top and b.from_module is None for b in bindings if b.local == top
        )

    def _loaded_with(self, bound: str, module: str, home: Optional[cst.FunctionDef] = None) -> bool:
        pending = any(
            (key[0] == module or key[0].startswith(module + ".")) and (len(key) == 3 or key[3] is home)
            for key in self._pending_imports
        )
        return pending or module in LOADED_BY_PARENT or self.names.imports_module(module)

    def add_import(
        self,
        module: str,
        obj: Optional[str] = None,
        asname: Optional[str] = None,
        site: Optional[cst.CSTNode] = None,
    ) -> None:
        """Import ``module`` (or ``obj`` from it) for a use at ``site`` (by default the node
        whose edit is being applied): at module level, or inside the function that holds
        the site when the module imports that package only inside functions."""
        if site is None and self._beside(module, obj, asname):
            return
        home = self._import_home(module, site if site is not None else self.site)
        key: tuple = (module, obj, asname) if home is None else (module, obj, asname, home)
        # Rules prepare an edit's names before reporting it: the finding reported next owns them.
        self._unreported_imports.append(key)
        if key not in self._pending_imports:
            self._pending_imports.add(key)
            if home is not None:
                return  # inserted into the function by the engine (function_imports)
            from libcst.codemod.visitors import AddImportsVisitor

            AddImportsVisitor.add_needed_import(self.codemod_context, module, obj, asname)

    def _beside(self, module: str, obj: Optional[str], asname: Optional[str]) -> bool:
        """While the engine applies an edit of an import statement inside a block
        (``if jax_version >= ...: from jax.core import Tracer, Token``), a name it moves
        is imported right after that statement, in the same block: at the top of the
        module the new import would run on every release, also those the block is not
        for. ``False`` where the usual placement applies."""
        site = self.site
        if not isinstance(site, (cst.Import, cst.ImportFrom)):
            return False
        line = self.parents.get(site)
        if not isinstance(line, cst.SimpleStatementLine) or isinstance(self.parents.get(line), cst.Module):
            return False
        local = asname or (obj if obj is not None else module.split(".")[0])
        qualified = module if obj is None else f"{module}.{obj}"
        if (module, obj, asname) in self._pending_imports or any(
                b.top_level and b.local == local and b.qualified == qualified for b in self.names.imports):
            return True  # the module already imports it for every block
        wanted = self.beside_imports.setdefault(line, [])
        if (module, obj, asname) not in wanted:
            wanted.append((module, obj, asname))
        return True

    def function_imports(self, function: cst.FunctionDef) -> list[tuple[str, Optional[str], Optional[str]]]:
        """The imports to add inside ``function`` (an original node), sorted."""
        keys = {key[:3] for key in self._pending_imports if len(key) == 4 and key[3] is function}
        return sorted(keys, key=lambda k: (k[1] is not None, k[0], k[1] or "", k[2] or ""))

    # -- where a name used inside a function comes from -----------------------
    def functions_around(self, site: cst.CSTNode) -> list[cst.FunctionDef]:
        """The functions whose body holds ``site``, outermost first (a decorator, default
        value or annotation belongs to the scope around its function)."""
        chain = [*self.ancestors_of(site), site]
        return [
            node for node, below in zip(chain, chain[1:])
            if isinstance(node, cst.FunctionDef) and below is node.body
        ]

    def _import_home(self, qualified: str, site: Optional[cst.CSTNode]) -> Optional[cst.FunctionDef]:
        """The function an import of ``qualified`` needed at ``site`` goes into, or ``None``
        for module level: only where the module imports the package (jax and jaxlib count
        as one) inside functions alone, so that importing the module does not need it."""
        if site is None:
            return None
        family = _family(qualified)
        if not self._imported_lazily(family):
            return None
        functions = self.functions_around(site)
        if not functions:
            return None
        # The factory that imports the package, so the import runs where the others do.
        home = next((f for f in functions if self._family_import_at(f, family) is not None), functions[0])
        index = self._index_in(home, site)
        if index is not None:
            first = self._first_site.get(home)
            self._first_site[home] = index if first is None else min(first, index)
        return home

    def _imported_lazily(self, family: frozenset) -> bool:
        """Whether the module imports ``family`` only inside functions (and, at module
        level, at most under ``if TYPE_CHECKING:``)."""
        known = self._lazy.get(family)
        if known is not None:
            return known
        inside = False
        lazy = True
        for binding in self.names.imports:
            if _family(binding.from_module or binding.qualified) != family:
                continue
            if binding.top_level:
                if not self._type_checking_only(binding.statement):
                    lazy = False
                    break
                continue
            if any(isinstance(a, cst.FunctionDef) for a in self.ancestors_of(binding.statement)):
                inside = True
            else:  # a class body runs at import time
                lazy = False
                break
        self._lazy[family] = lazy = lazy and inside
        return lazy

    def _type_checking_only(self, statement: cst.CSTNode) -> bool:
        chain = [*self.ancestors_of(statement), statement]
        for node, below in zip(chain, chain[1:]):
            if isinstance(node, cst.If) and below is node.body:
                test = node.test
                name = test.attr.value if isinstance(test, cst.Attribute) else getattr(test, "value", None)
                if name == "TYPE_CHECKING":
                    return True
        return False

    def _family_import_at(self, function: cst.FunctionDef, family: frozenset) -> Optional[int]:
        """Index in ``function``'s body of the last statement importing ``family`` there."""
        body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
        return _last_import_of(body, family)

    def _index_in(self, function: cst.FunctionDef, node: cst.CSTNode) -> Optional[int]:
        """Index in ``function``'s body of the statement that holds ``node``."""
        chain = [*self.ancestors_of(node), node]
        for above, below in zip(chain, chain[1:]):
            if above is function.body:
                for index, stmt in enumerate(function.body.body):
                    if stmt is below:
                        return index
        return None

    def import_position(self, function: cst.FunctionDef) -> Optional[int]:
        """Index in ``function``'s original body after which its new imports go (after
        the last import of the package before the first site; ``None``: at the top)."""
        if not isinstance(function.body, cst.IndentedBlock):
            return None  # ``def f(): ...; ...`` on one line
        family = frozenset().union(*(_family(key[0]) for key in self.function_imports(function)))
        body = function.body.body
        first = self._first_site.get(function, len(body))
        return _last_import_of(body[:first], family)

    def enclosing_binding(self, qualified: str, site: cst.CSTNode) -> Optional[tuple[str, str]]:
        """``(text, bound)`` naming ``qualified`` through an import an enclosing function
        made before ``site`` (closures see it), as :meth:`NameResolver.binding_and_prefix`."""
        best: Optional[tuple[int, str, str]] = None
        functions = None
        for binding in self.names.imports:
            q = binding.qualified
            if binding.top_level or not (qualified == q or qualified.startswith(q + ".")):
                continue
            if best is not None and len(q) <= best[0]:
                continue
            if functions is None:
                functions = self.functions_around(site)
                if not functions:
                    return None
            if self._visible_at(binding, site, functions):
                best = (len(q), binding.local + qualified[len(q):], q)
        return (best[1], best[2]) if best else None

    def _visible_at(self, binding, site: cst.CSTNode, functions: list) -> bool:
        from libcst.metadata import FunctionScope, ImportAssignment

        scope = self.scopes.get(site)
        if scope is None:
            return False
        assignments = scope[binding.local]
        same = {
            b.statement for b in self.names.imports
            if b.local == binding.local and b.qualified == binding.qualified and not b.top_level
        }
        before = False
        for assignment in assignments:
            if not isinstance(assignment, ImportAssignment) or assignment.node not in same:
                return False  # rebound (or shadowed) by something else where the site is
            owner = assignment.scope
            if not isinstance(owner, FunctionScope) or owner.node not in functions:
                return False
            made, used = self._index_in(owner.node, assignment.node), self._index_in(owner.node, site)
            before = before or (made is not None and used is not None and made < used)
        return before

    def remove_import_if_unused(self, module: str, obj: Optional[str] = None, asname: Optional[str] = None) -> None:
        """Drop ``import module`` / ``from module import obj`` once nothing uses it."""
        from libcst.codemod.visitors import RemoveImportsVisitor

        RemoveImportsVisitor.remove_unused_import(self.codemod_context, module, obj, asname)
        if obj is not None and asname is None:
            # ``from module import obj as obj`` (a package's explicit re-export) binds the
            # same name; LibCST matches the alias as written.
            RemoveImportsVisitor.remove_unused_import(self.codemod_context, module, obj, obj)

    def named_in_string(self, name: str) -> bool:
        """``name`` is a whole string literal in the file (``__all__ = ["name"]``,
        ``getattr(m, "name")``): other code may reach what it binds by that string."""
        return re.search(rb"[\"']" + re.escape(name.encode()) + rb"[\"']", self.source) is not None

    def remove_dotted_import_if_unused(self, module: str) -> None:
        """Drop ``import a.b.module`` (no ``as``) once no ``a.b.module.x`` is left."""
        self.dotted_removals.add(module)

    def add_helper(self, name: str, code: str, exported: bool = False) -> str:
        """Ensure a module-level helper ``def name`` exists; returns the name to call.

        A helper is defined only if the new text reads it, unless ``exported``: then it
        stands for a module-level name other modules may import from this one."""
        self.helpers.setdefault(name, code)
        if exported:
            self.exported_helpers.add(name)
        return name

    # -- scopes (computed lazily: most files never need them) ---------------
    @property
    def scopes(self) -> dict:
        if self._scopes is None:
            self._scopes = dict(self.wrapper.resolve(ScopeProvider))
        return self._scopes

    @property
    def parents(self) -> "ParentMap":
        """Parent of every node of the module (``parents.get(node)``; ``None`` for the
        module itself and for nodes that are not in it)."""
        return ParentMap(self)  # made on demand: a view kept here would be a reference cycle

    def parent_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        parents = self._parent_of
        found = parents.get(node, _UNKNOWN)
        if found is not _UNKNOWN:
            return found
        if self._parents_complete:
            if self._unwalked:
                # Statements the walk's plan skipped: their parents, on first demand.
                pending, self._unwalked = self._unwalked, []
                for stmt in pending:
                    walk.record_parents(stmt, parents)
                found = parents.get(node, _UNKNOWN)
                if found is not _UNKNOWN:
                    return found
            if self._trivia_complete or type(node) not in walk.TRIVIA:
                return None
            self._trivia_complete = True
            walk.record_parents(self.module, parents)
            return parents.get(node)
        # Mid-walk, rules mostly ask about the parts of the node they are visiting.
        current = getattr(self.walk, "current", None)
        if current is not None and current not in self._recorded_below:
            self._recorded_below.add(current)
            walk.record_parents(current, parents)
            found = parents.get(node, _UNKNOWN)
            if found is not _UNKNOWN:
                return found
        self.complete_parents()
        return parents.get(node)

    def complete_parents(self) -> None:
        """Record the parent of every node the engine's walk has not reached."""
        if not self._parents_complete or self._unwalked:
            self._parent_of[self.module] = None
            walk.record_parents(self.module, self._parent_of)
            self._parents_complete = True
            self._trivia_complete = True
            self._unwalked = []

    def walked(self) -> None:
        """The engine's walk has visited every node: the parents it recorded are all,
        but for those below the trivia it skipped."""
        if self.walk is not None and self.walk.skipped and not self._parents_complete:
            self._trivia_complete = False
        if self.walk is not None:
            self._unwalked = self.walk.unwalked
        self.walk = None
        self._parents_complete = True

    def release(self) -> None:
        """Let go of what this file's analysis holds, the tree above all, now.

        Each finding's edit refers to its rule, and each rule to this context: a cycle
        only the garbage collector frees, late, so a run over many files would hold
        several trees at once.
        """
        self.findings = []
        self.walk = None
        self._parent_of = {}
        self._scopes = None
        self._partial_scopes = {}
        self._stubbed = {}
        self._statement_index = None
        self.python_tree = None
        self._module_bindings = {}

    # -- positions (computed for the nodes that need them, in one partial pass) ----
    @property
    def statement_index(self) -> Optional[positions.StatementIndex]:
        """Where each top-level statement starts in ``source`` (``None`` when unsure)."""
        if self._statement_index is _UNKNOWN:
            self._statement_index = positions.statement_index(self.module, self.source, self.python_tree)
            self.python_tree = None
        return self._statement_index  # type: ignore[return-value]

    @statement_index.setter
    def statement_index(self, index: Optional[positions.StatementIndex]) -> None:
        self._statement_index = index

    def locate(self, nodes) -> dict:
        """``CodeRange`` of each of ``nodes``."""
        nodes = set(nodes)
        index = self.statement_index if nodes else None
        if index is not None:
            found = positions.locate_in(index, nodes, self.top_statement)
            if found is not None:
                return found[0]
        ranges, _ = positions.locate(self.module, nodes)
        return ranges

    def top_statement(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The statement of the module's body that holds ``node``."""
        parent = self.parent_of(node)
        while parent is not None and parent is not self.module:
            node, parent = parent, self.parent_of(parent)
        return node if parent is self.module else None

    def ancestors_of(self, node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
        """Nodes above ``node``, outermost (the module) first."""
        chain = []
        current = self.parent_of(node)
        while current is not None:
            chain.append(current)
            current = self.parent_of(current)
        return tuple(reversed(chain))

    def paths_to(self, nodes) -> Optional[set]:
        """Every node on the way from the module to ``nodes``; ``None`` if one is unknown."""
        found: set = set()
        for node in nodes:
            if node is not self.module and self.parent_of(node) is None:
                return None
            while node is not None and node not in found:
                found.add(node)
                node = self.parent_of(node)
        return found

    def value_bound_once(self, name: cst.Name) -> Optional[cst.BaseExpression]:
        """The expression a bare name was bound to, when it is bound exactly once.

        Only plain ``name = value`` / ``name: T = value`` statements count; a name that is
        also a parameter, imported, assigned twice, augmented or bound in a loop gives
        ``None`` (its type cannot be proven statically).
        """
        if name.value not in self._plainly_assigned():
            return None  # the answer below comes from such a statement or is None
        known, bindings = self._bindings(name)
        if known:
            if len(bindings) != 1:
                return None
            stmt = bindings[0]
            if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name):
                return stmt.value
            if isinstance(stmt, cst.AnnAssign) and isinstance(stmt.target, cst.Name):
                return stmt.value
            return None
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

    def _plainly_assigned(self) -> frozenset:
        """Names that a ``name = value`` or ``name: T = value`` statement anywhere in the
        module assigns: the only statements :meth:`value_bound_once` takes a value from."""
        if self._assigned is None:
            self._scan_assignments()
        return self._assigned

    def aliases(self) -> frozenset:
        """Names such a statement assigns a name or attribute (``xops = xla_client.ops``).

        Rules follow these to resolve ``xops.CustomCall``; for the head of any other
        attribute call (``self.items.append``, a parameter, a loop variable) this
        statement-level pass answers without the scope analysis the lookup may need.
        """
        if self._aliases is None:
            self._scan_assignments()
        return self._aliases

    def _scan_assignments(self) -> None:
        assigned, aliases = set(), set()
        for stmt, _ in iter_statements(self.module.body, True):
            if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0].target
            elif isinstance(stmt, cst.AnnAssign):
                target = stmt.target
            else:
                continue
            if isinstance(target, cst.Name):
                assigned.add(target.value)
                if isinstance(stmt.value, (cst.Name, cst.Attribute)):
                    aliases.add(target.value)
        self._assigned, self._aliases = frozenset(assigned), frozenset(aliases)

    def class_def(self, name: cst.Name) -> Optional[cst.ClassDef]:
        """The ``class`` statement a name refers to, when it is defined in this module."""
        return self._sole_definition(name, cst.ClassDef)

    def function_def(self, name: cst.Name) -> Optional[cst.FunctionDef]:
        """The ``def`` statement a name refers to, when it is the name's one binding."""
        return self._sole_definition(name, cst.FunctionDef)

    def _sole_definition(self, name: cst.Name, kind: type):
        known, bindings = self._bindings(name)
        if known:
            return bindings[0] if len(bindings) == 1 and isinstance(bindings[0], kind) else None
        scope = self.scope_of(name)
        if scope is None:
            return None
        assignments = list(scope[name.value])
        if len(assignments) == 1 and isinstance(getattr(assignments[0], "node", None), kind):
            node = assignments[0].node
            return self._stubbed.get(node, node)
        return None

    def _bindings(self, name: cst.Name) -> tuple[bool, list]:
        """``(True, statements binding the name in the scope a lookup reaches)`` for the
        common case of a name read in a function's body or at module level; ``(False,
        [])`` when nested scopes or constructs make a full scope analysis necessary.

        Each binding is reported as its statement (``Assign``, ``AnnAssign``, ``ClassDef``...)
        or as the ``Param``/other node that binds it, once per binding.
        """
        text = name.value
        if self._scopes is not None or b"global" in self.source or b"nonlocal" in self.source or self._walrus_binds(text):
            return False, []
        chain = self.ancestors_of(name)
        if not chain:
            return False, []
        parent = chain[-1]
        if not _is_read(parent, name):
            return False, []  # an attribute, keyword, parameter or import name: not a variable read
        function = None
        for i, node in enumerate(chain):
            if isinstance(node, (cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
                return False, []
            if isinstance(node, cst.FunctionDef):
                if function is not None:
                    return False, []  # a nested function: closures need the full analysis
                inner = chain[i + 1] if i + 1 < len(chain) else name
                if inner is not node.body or node.type_parameters is not None:
                    return False, []  # decorators, defaults, annotations: the enclosing scope
                function = node
        if function is not None:
            found = _ScopeBindings(text)
            if not found.scan_function(function):
                return False, []
            if found.bindings:
                return True, found.bindings
        module_level = self._module_bindings.get(text)
        if module_level is None:
            # Rules ask about the same few names (a config, a helper) at many sites.
            found = _ScopeBindings(text)
            module_level = self._module_bindings[text] = (True, found.bindings) if found.scan_body(self.module.body) else (False, [])
        return module_level

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
        if b":=" not in self.source:
            return False
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
    """``module`` with ``keep`` whole and, of everything else, the bindings of names
    that ``keep`` mentions (what a scope lookup from inside ``keep`` can see)."""
    used = walk.names_in(keep)
    body = []
    for stmt in module.body:
        if stmt is not keep:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                if stmt.name.value not in used:
                    continue
                stub = stmt.with_changes(body=_STUB_BODY)
                stubbed[stub] = stmt
                stmt = stub
            elif isinstance(stmt, cst.SimpleStatementLine):
                smalls = [_binding_only(small, used) for small in stmt.body]
                smalls = [small for small in smalls if small is not None]
                if not smalls:
                    continue
                stmt = stmt.with_changes(body=smalls)
            # Compound statements (if/try/with/for at module level) are kept whole.
        body.append(stmt)
    return module.with_changes(body=body)


def _binding_only(small: cst.BaseSmallStatement, used: set[str]) -> Optional[cst.BaseSmallStatement]:
    """The part of a simple statement that may bind a name in ``used`` (the same target
    nodes, the value elided), or None."""
    if isinstance(small, cst.Assign):
        if any(_target_names(t.target) & used for t in small.targets):
            return small.with_changes(value=cst.Ellipsis())
        return None
    if isinstance(small, cst.AugAssign):
        return small.with_changes(value=cst.Ellipsis()) if _target_names(small.target) & used else None
    if isinstance(small, cst.AnnAssign):
        if not _target_names(small.target) & used:
            return None
        return small.with_changes(value=None if small.value is None else cst.Ellipsis(), annotation=cst.Annotation(cst.Name("object")))
    if isinstance(small, cst.Del):
        return small if _target_names(small.target) & used else None
    if isinstance(small, cst.Import):
        return small if any((a.evaluated_alias or a.evaluated_name).split(".")[0] in used for a in small.names) else None
    if isinstance(small, cst.ImportFrom):
        if isinstance(small.names, cst.ImportStar):
            return small
        return small if any((a.evaluated_alias or a.evaluated_name) in used for a in small.names) else None
    if isinstance(small, (cst.Global, cst.Nonlocal)):
        return small
    return None


def _target_names(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(*(_target_names(e.value) for e in target.elements)) if target.elements else set()
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return set()  # attributes and subscripts bind no name


_NEW_SCOPES = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


class _ScopeBindings(cst.CSTVisitor):
    """Every binding of one name made directly in one scope (not in nested scopes).

    ``ok`` turns false on constructs whose bindings this does not model (match
    patterns, star imports, type parameters): the caller then asks LibCST's full
    scope analysis instead.
    """

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.bindings: list[cst.CSTNode] = []
        self.ok = True

    def scan_function(self, function: cst.FunctionDef) -> bool:
        params = function.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.name.value == self.name:
                self.bindings.append(param)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param) and star.name.value == self.name:
                self.bindings.append(star)
        walk.read(function.body, self)
        return self.ok

    def scan_body(self, body) -> bool:
        for stmt in body:
            walk.read(stmt, self)
        return self.ok

    def _target(self, stmt: cst.CSTNode, target: cst.BaseExpression) -> None:
        if self.name in _target_names(target):
            self.bindings.append(stmt)

    # Simple statements: their expressions can bind only with ':=' (excluded earlier).
    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        for small in node.body:
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    self._target(small, target.target)
            elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                self._target(small, small.target)
            elif isinstance(small, cst.Import):
                if any((a.evaluated_alias or a.evaluated_name).split(".")[0] == self.name for a in small.names):
                    self.bindings.append(small)
            elif isinstance(small, cst.ImportFrom):
                if isinstance(small.names, cst.ImportStar):
                    self.ok = False
                elif any((a.evaluated_alias or a.evaluated_name) == self.name for a in small.names):
                    self.bindings.append(small)
            elif isinstance(small, (cst.Global, cst.Nonlocal)):
                self.ok = False
            elif type(small).__name__ == "TypeAlias":
                self.ok = False
        return False

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> bool:
        return self.visit_SimpleStatementLine(cst.SimpleStatementLine(body=node.body))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if node.name.value == self.name:
            self.bindings.append(node)
        return False  # its body is another scope

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        if node.name.value == self.name:
            self.bindings.append(node)
        return False

    def visit_For(self, node: cst.For) -> None:
        self._target(node, node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._target(node, node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._target(node, node.name.name)

    def visit_ExceptStarHandler(self, node) -> None:
        if node.name is not None:
            self._target(node, node.name.name)

    def visit_Match(self, node: cst.Match) -> bool:
        self.ok = False
        return False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _NEW_SCOPES):
            return False
        return super().on_visit(node)


def _is_read(parent: cst.CSTNode, name: cst.Name) -> bool:
    if isinstance(parent, cst.Attribute):
        return parent.value is name
    if isinstance(parent, cst.Arg):
        return parent.value is name
    return not isinstance(
        parent, (cst.ImportAlias, cst.AsName, cst.FunctionDef, cst.ClassDef, cst.Param, cst.Global, cst.Nonlocal, cst.NameItem, cst.Decorator)
    ) or isinstance(parent, cst.Decorator) and parent.decorator is name
