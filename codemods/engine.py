"""The engine: find candidate files, parse each once, run the selected rules, rewrite.

It knows no rule by name. For each file:

1. a cheap byte test against the rules' ``triggers`` decides whether the file can hold
   a site at all (most files of a repository stop here, unparsed);
2. the file is parsed once with LibCST and every rule whose trigger occurs walks that
   one tree in a single batched traversal, reporting findings and edits;
3. accepted edits are applied innermost first in one transform, needed imports and
   helpers are added, manual findings optionally annotated;
4. the new text is re-parsed and the rules it triggers are run on it again (also those
   the original did not trigger): a rewrite that does not parse, or that a second pass
   would change again, is refused for that file, unless the changes left are ones the
   rewrite exposed (see :class:`_AnotherPass`): then the rules run on the rewrite, up to
   :data:`MAX_PASSES` passes.

Failures are isolated per file and come back as :class:`FileResult` errors.
"""

from __future__ import annotations

import ast
import concurrent.futures
import dataclasses
import functools
import gc
import multiprocessing
import os
import re
from typing import Callable, Iterable, Optional, Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods import positions, walk
from codemods.context import Claim, FileContext, Finding, Options, Project, import_line
from codemods.discovery import Found, discover
from codemods.fileio import read_source, text_problem
from codemods.rule import Change, IndexEntry, LinkKey, Rule, Safety

SUPPRESS = re.compile(r"#\s*ccmigrate:\s*ignore(?:\[([^\]]*)\])?")
TODO_PREFIX = "# TODO(ccmigrate): "
SUPPRESSED_PREFIX = "suppressed by comment: "


@dataclasses.dataclass
class FileResult:
    path: str
    original: Optional[bytes] = None
    updated: Optional[bytes] = None
    changes: list[Change] = dataclasses.field(default_factory=list)
    error: Optional[str] = None
    encoding: str = "utf-8"
    #: This file's side of each decision linked with other files (``ctx.link``).
    claims: dict[LinkKey, Claim] = dataclasses.field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return self.updated is not None and self.updated != self.original


class RewriteError(Exception):
    """The rules produced text that fails the self-check; nothing is written."""


class _AnotherPass(RewriteError):
    """The rewrite holds, but its own edits showed the rules more to change: an import
    one rule added binds a name that another rule's site reads (in a file that read it
    unbound). The rules run again on the rewrite, as a second ``apply`` would."""


#: Passes over one file before a rewrite that keeps exposing changes is refused.
MAX_PASSES = 3


_RELATIVE_FROM = re.compile(rb"^[ \t]*from[ \t]+(\.+)", re.M)


def package_of(path: str, source: Optional[bytes] = None) -> Optional[str]:
    """Dotted package holding ``path``, from the chain of ``__init__.py`` files.

    A module of a namespace package (directories without ``__init__.py``, or a snapshot
    that left them out) still says how deep it sits by its relative imports: ``from
    ..utils import x`` takes two levels, named after its directories, and the regular
    packages above them go on.
    """
    if source is None:
        try:
            with open(path, "rb") as fh:
                source = fh.read()
        except OSError:
            source = b""
    needed = max((len(m.group(1)) for m in _RELATIVE_FROM.finditer(source)), default=0) if b"from ." in source else 0
    directory = os.path.dirname(os.path.abspath(path))
    parts: list[str] = []
    chain = None  # how many of ``parts`` the __init__ chain alone gives
    while True:
        name = os.path.basename(directory)
        regular = os.path.isfile(os.path.join(directory, "__init__.py"))
        # A project's own ``jax`` subpackage (TransformerEngine's ``transformer_engine/jax``)
        # under a directory without ``__init__.py`` is not jax: named from its parent too,
        # else its ``from ..util import x`` would read as jax's own ``jax.util``.
        shadows_jax = bool(parts) and parts[-1] in ("jax", "jaxlib") and name.isidentifier()
        if not regular and not shadows_jax and (len(parts) >= needed or not name.isidentifier()):
            break
        if not regular and chain is None:
            chain = len(parts)
        parts.append(name)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    if len(parts) < needed:
        parts = parts[:chain] if chain is not None else parts  # the depth cannot be named
    return ".".join(reversed(parts)) if parts else None


def triggered(rules: Sequence[type[Rule]], source: bytes) -> list[type[Rule]]:
    return [r for r in rules if any(t in source for t in r.triggers)]


def needles(triggers: Iterable[bytes]) -> tuple[bytes, ...]:
    """The triggers a file is searched for: one that contains another is found only where
    the other is, so it is dropped (every file is searched once per needle, and on most
    files every search fails)."""
    ordered = sorted(set(triggers), key=len)
    kept: list[bytes] = []
    for trigger in ordered:
        if not any(shorter in trigger for shorter in kept):
            kept.append(trigger)
    return tuple(kept)


# -- one file -------------------------------------------------------------------


NestingTooDeep = positions.NestingTooDeep


def analyse(
    path: str,
    source: bytes,
    rules: Sequence[type[Rule]],
    options: Options,
    package: Optional[str] = None,
    locate: bool = True,
    module: Optional[cst.Module] = None,
    statements: Optional[positions.StatementIndex] = None,
) -> FileContext:
    """Parse ``source`` and run ``rules`` over it; findings are in ``ctx.findings``.

    Without ``locate`` the findings carry no line numbers (a self-check needs none).
    ``module``, when given, is the parser's tree of ``source`` already, and
    ``statements`` where its top-level statements start, when known.
    """
    tree = None
    if module is None:
        tree = positions.python_tree(source)  # first: nesting it refuses crashes LibCST's parser
        gc.freeze()  # parse cost grows on large files when the collector scans the new tree
        try:
            module = cst.parse_module(source)
        except RecursionError:
            raise NestingTooDeep() from None
        finally:
            gc.unfreeze()
    ctx = FileContext(path, source, module, options, package)
    if statements is not None:
        ctx.statement_index = statements
    elif tree is not None:
        ctx.python_tree = tree
    visitors = [rule(ctx) for rule in rules]
    if visitors:
        methods = walk.visitor_methods(visitors)
        if walk.walkable(methods):
            ctx.walk = walk.Walk(methods, ctx._parent_of)
            ctx.walk.run(module, _plan(ctx, visitors))
            ctx.walked()
        else:
            ctx.wrapper.visit_batched(visitors)
    if locate:
        locate_findings(ctx)
    added = _report_kept_imports(ctx, rules)
    if locate and added:
        locate_findings(ctx, added)
    return ctx


def _plan(ctx: FileContext, visitors: list[Rule]) -> Optional[walk.Plan]:
    """Which top-level statements each rule's visitor walks (see :attr:`Rule.statement_scoped`)."""
    if not any(v.statement_scoped for v in visitors):
        return None
    index = ctx.statement_index
    if index is None:
        return None
    if index.lines is None:  # a spliced rewrite's index: its text is the new source
        index.lines = ctx.source.splitlines(keepends=True)
    texts = [index.text_of(k) for k in range(len(ctx.module.body))]
    return walk.statement_plan(
        ctx.module, texts, visitors, [v.triggers for v in visitors], [v.statement_scoped for v in visitors]
    )


#: Modules jax deleted, and names deleted from modules that remain: an import of one that
#: stays after the rewrite fails at import time, before any site that needs it runs.
DELETED_MODULES = (
    "jax.lib.xla_client", "jaxlib.xla_client", "jax._src.lib.xla_client", "jax.lib.xla_bridge",
    "jax.lib.xla_extension", "jaxlib.xla_extension", "jaxlib.hlo_helpers", "jaxlib.mhlo_helpers", "jax.xla",
    "jax.interpreters.mlir.custom_call", "jax.experimental.host_callback", "jax.util",
)


#: Modules of DELETED_MODULES that still import (without their XlaBuilder API): their
#: import does not fail; the uses that do are reported where they are.
STILL_IMPORTABLE = ("jaxlib.xla_client", "jax._src.lib.xla_client")
#: The rest: modules whose import itself fails.
GONE_MODULES = tuple(m for m in DELETED_MODULES if m not in STILL_IMPORTABLE)


def _under(qualified: str, modules: Sequence[str]) -> bool:
    return any(qualified == m or qualified.startswith(m + ".") for m in modules)


def _import_fails(binding) -> bool:
    """The import statement itself fails on the installed jax: its module is gone, or it
    takes a removed member from a module still there (``from jaxlib.xla_client import
    ops``)."""
    if _under(binding.qualified, GONE_MODULES):
        return True
    from codemods.rules._installed_jax import first_missing

    return binding.from_module in STILL_IMPORTABLE and first_missing(binding.qualified) is not None


def _report_kept_imports(ctx: FileContext, rules: Sequence[type[Rule]] = ()) -> list[Finding]:
    """A manual finding on each import of a deleted module that manual sites still use.

    The rules rewrite what they can and drop the import once nothing uses it; when a
    manual site keeps it alive, the import line is what fails first, so it is reported
    too, naming the sites that keep it. A plain ``import jax.experimental.host_callback``
    that nothing reads at all is removed (safe), the root it binds kept where it is read.
    """
    from codemods.rules._shared import serves_older_jax

    manual = [f for f in ctx.findings if f.change.safety is Safety.MANUAL and not f.suppressed]
    reported = {id(f.node) for f in manual}
    added: list[Finding] = []
    for binding in ctx.names.imports:
        qual = binding.qualified
        # Skipped when this pass reported the statement already, or when a rule's manual
        # finding at it speaks of this name; one about another name the statement imports
        # (`from jax import api, xla`) does not cover it.
        if id(binding.statement) in reported and (
                any(f.node is binding.statement for f in added)
                or any(f.node is binding.statement and _names_binding(f.change.message, binding) for f in manual)):
            continue
        if not _under(qual, DELETED_MODULES) or qual in STILL_IMPORTABLE:
            continue
        if serves_older_jax(ctx, binding.statement):
            continue  # a branch for the releases that still have it: it does not run on the target
        if any(f.node is binding.statement and _names_binding(f.change.message, binding) for f in ctx.findings):
            continue  # a fix of this very import (a move) already covers it
        # A site holding the import (a fallback reported whole) does not keep it: it is it.
        around = set(ctx.ancestors_of(binding.statement))
        users = [f for f in manual if f.node is not binding.statement and f.node not in around
                 and binding.local in walk.reads_in(f.node)]
        if not binding.top_level:
            # An import inside a function fails when the function runs, and only the
            # sites in that function (or nested in it) use what it binds.
            function = _innermost_function(ctx, binding.statement)
            users = [f for f in users if function is not None and function in ctx.ancestors_of(f.node)]
            if users:
                _report_kept(ctx, qual, binding.statement, users, f"when `{function.name.value}` runs")
                reported.add(id(binding.statement))
                added.append(ctx.findings[-1])
            elif function is not None and ctx.options.every_rule and _import_fails(binding):
                unmigrated = _uses_no_finding_covers(ctx, binding, rules, within=function)
                if unmigrated:
                    _report_unmigrated_import(ctx, binding, unmigrated, rules, f"when `{function.name.value}` runs")
                elif _unread_module_import(ctx, binding, within=function):
                    _remove_unread_import(ctx, binding, rules, f"when `{function.name.value}` runs")
                else:
                    continue
                reported.add(id(binding.statement))
                added.append(ctx.findings[-1])
            continue
        if not users:
            if not ctx.options.every_rule or not _import_fails(binding):
                continue
            unmigrated = _uses_no_finding_covers(ctx, binding, rules)
            if unmigrated:
                _report_unmigrated_import(ctx, binding, unmigrated, rules)
            elif _unread_module_import(ctx, binding):
                _remove_unread_import(ctx, binding, rules, "at import time")
            else:
                continue
            reported.add(id(binding.statement))
            added.append(ctx.findings[-1])
            continue
        _report_kept(ctx, qual, binding.statement, users)
        reported.add(id(binding.statement))
        added.append(ctx.findings[-1])
    manual_code: Optional[list[tuple[Finding, str]]] = None  # each manual site's code, generated once
    for binding in ctx.names.imports:
        # ``import jax.lib.xla_client`` binds ``jax``: the deleted module is the dotted
        # name, and the manual sites spell it in full.
        stmt = binding.statement
        if id(stmt) in reported or not isinstance(stmt, cst.Import) or binding.local != binding.qualified \
                or serves_older_jax(ctx, stmt):
            continue
        function = None if binding.top_level else _innermost_function(ctx, stmt)
        for alias in stmt.names:
            full = get_full_name_for_node(alias.name) or ""
            if alias.asname is not None or not full.startswith(binding.local + ".") or not _under(full, GONE_MODULES):
                continue
            if any(f.node is stmt and full in f.change.message for f in ctx.findings):
                continue  # the rule that owns the module removes this import already
            if manual_code is None:
                manual_code = [(f, positions.code_for_node(ctx.module, f.node)) for f in manual]
            users = [f for f, code in manual_code if full + "." in code
                     and (function is None or function in ctx.ancestors_of(f.node))]
            if users:
                _report_kept(ctx, full, stmt, users, "at import time" if function is None else f"when `{function.name.value}` runs")
            elif ctx.options.every_rule and function is None and (spelt := _dotted_uses_no_finding_covers(ctx, full)):
                # ``jax.util.safe_map`` in a branch for older jax: nothing migrates it, and the
                # import above every branch fails on the target.
                _report_unmigrated_import(ctx, dataclasses.replace(binding, qualified=full), spelt, rules)
            elif ctx.options.every_rule and (full + ".") not in (
                    ctx.source.decode("utf-8", "replace") if function is None else positions.code_for_node(ctx.module, function)):
                # Nothing spells the module: no rule has a use to migrate and drop it with.
                owner = next((r.name for r in rules if any(t in full.encode() for t in r.triggers)),
                             rules[0].name if rules else "ccmigrate")
                fails = "at import time" if function is None else f"when `{function.name.value}` runs"
                # Nothing reads it, so it goes; the root it also binds stays bound (``import
                # jax``) where the code reads it and no other import binds it.
                ctx.remove_dotted_import_if_unused(full)
                ctx.report(owner, stmt, Safety.SAFE,
                           f"import of `{full}` (deleted from jax) is not used and failed {fails}: removed",
                           lambda updated: updated, kernel_receives="unchanged (not a custom call)")
            else:
                continue
            reported.add(id(stmt))
            added.append(ctx.findings[-1])
            break
    return added


def _innermost_function(ctx: FileContext, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
    return next((a for a in reversed(ctx.ancestors_of(node)) if isinstance(a, cst.FunctionDef)), None)


def _report_kept(ctx: FileContext, qual: str, statement: cst.CSTNode, users: list[Finding], fails: str = "at import time") -> None:
    lines = sorted({f.change.line for f in users})
    rule = users[0].change.rule
    # Annotations shift lines, and the comment must read the same on a second run.
    where = (f"{len(lines)} manual site(s) that use it, annotated with TODO(ccmigrate)" if ctx.options.annotate
             else f"manual sites at line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}")
    ctx.report(rule, statement, Safety.MANUAL,
               f"import of `{qual}` (deleted from jax) kept for the {where}: "
               f"it fails {fails} until they are migrated")
    ctx.findings[-1].serves = tuple(users)


def _names_binding(message: str, binding) -> bool:
    """Whether a finding's message is about ``binding`` (not another name the same
    statement imports: dropping an unused ``xla_bridge`` says nothing of ``xla_client``)."""
    return binding.qualified in message or f"`{binding.local}`" in message


def _unread_module_import(ctx: FileContext, binding, within: Optional[cst.CSTNode] = None) -> bool:
    """``from jaxlib import hlo_helpers`` (a deleted module, bound by a from-import) that
    nothing reads (``within`` the function holding it) and no fallback guards."""
    from codemods.rules._shared import jax_fallback_guard

    if not isinstance(binding.statement, cst.ImportFrom) or binding.qualified not in GONE_MODULES:
        return False
    return jax_fallback_guard(ctx, binding.statement) is None and not _reads_of_name(ctx, binding.local, within)


def _remove_unread_import(ctx: FileContext, binding, rules: Sequence[type[Rule]], fails: str) -> None:
    """Remove the unread import, or report it when a string names it (``__all__``
    re-exports it to other modules)."""
    text = positions.code_for_node(ctx.module, binding.statement).encode()
    owner = next((r.name for r in rules if any(t in text for t in r.triggers)), rules[0].name if rules else "ccmigrate")
    if ctx.named_in_string(binding.local):
        ctx.report(owner, binding.statement, Safety.MANUAL,
                   f"import of `{binding.qualified}` (deleted from jax) is not read here but a string names "
                   f"`{binding.local}` (`__all__`?), so other modules may import it from this one: it fails {fails}; "
                   "migrate their uses, then delete it")
        return
    module, _, name = binding.qualified.rpartition(".")
    ctx.remove_import_if_unused(module, name, None if binding.local == name else binding.local)
    ctx.report(owner, binding.statement, Safety.SAFE,
               f"import of `{binding.qualified}` (deleted from jax) is not used and failed {fails}: removed",
               lambda updated: updated, kernel_receives="unchanged (not a custom call)")


def _reads_of_name(ctx: FileContext, local: str, within: Optional[cst.CSTNode] = None) -> list[cst.Name]:
    """The reads of the plain name ``local`` (not ``x.local``, not in imports)."""
    uses: list[cst.Name] = []

    class _Uses(_OutsideImports):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            walk.read(node.value, self)  # ``x.local`` is an attribute, not a use of ``local``
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == local:
                uses.append(node)

    walk.read(ctx.module if within is None else within, _Uses())
    return uses


def _uses_no_finding_covers(ctx: FileContext, binding, rules: Sequence[type[Rule]],
                            within: Optional[cst.CSTNode] = None) -> list[int]:
    """Lines where ``binding``'s name is read outside every finding: uses no rule migrates
    (type annotations, a module-level ``XlaBuilder(...)``), which keep the import alive.
    For an import inside a function, ``within`` is that function."""
    from codemods.rules._shared import jax_fallback_guard

    if jax_fallback_guard(ctx, binding.statement) is not None:
        return []
    return _lines_outside_findings(ctx, _reads_of_name(ctx, binding.local, within))


class _OutsideImports(cst.CSTVisitor):
    """A visitor that skips import statements and ``global``/``nonlocal`` declarations
    (they spell names, they do not use them)."""

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_Global(self, node: cst.Global) -> bool:
        return False

    def visit_Nonlocal(self, node: cst.Nonlocal) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False


def _lines_outside_findings(ctx: FileContext, nodes: list[cst.CSTNode]) -> list[int]:
    """The lines of ``nodes`` that no finding's node holds."""
    covered = {id(f.node) for f in ctx.findings}
    left = [n for n in nodes if not any(id(a) in covered for a in (n, *ctx.ancestors_of(n)))]
    if not left:
        return []
    ranges = ctx.locate(set(left))
    return sorted({ranges[n].start.line for n in left if n in ranges})


def _dotted_uses_no_finding_covers(ctx: FileContext, module: str) -> list[int]:
    """Lines where an attribute chain spells ``module`` (``jax.util.safe_map``) outside
    every finding: uses of a plain ``import module`` that no rule migrates."""
    chains: list[cst.Attribute] = []

    class _Chains(_OutsideImports):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            if (get_full_name_for_node(node) or "").startswith(module + "."):
                chains.append(node)
                return False
            return True

    walk.read(ctx.module, _Chains())
    return _lines_outside_findings(ctx, chains)


def _report_unmigrated_import(ctx: FileContext, binding, lines: list[int], rules: Sequence[type[Rule]],
                              fails: str = "at import time") -> None:
    where = ", ".join(map(str, lines[:8])) + (" ..." if len(lines) > 8 else "")
    # Annotations shift lines, and the comment must read the same on a second run.
    where = (f"{len(lines)} line(s)" if ctx.options.annotate
             else f"line{'s' if len(lines) > 1 else ''} {where}")
    # Attributed to the rule whose triggers the import statement holds (the module's owner).
    text = positions.code_for_node(ctx.module, binding.statement).encode()
    owner = next((r.name for r in rules if any(t in text for t in r.triggers)), rules[0].name if rules else "ccmigrate")
    ctx.report(
        owner, binding.statement, Safety.MANUAL,
        f"import of `{binding.qualified}` (deleted from jax) stays for uses no rule migrates, at "
        f"{where} (type annotations, XlaBuilder objects...): "
        f"it fails {fails}; replace or drop those uses, then the import",
    )


def locate_findings(ctx: FileContext, findings: Optional[Sequence[Finding]] = None) -> None:
    """Give each finding (or each of ``findings``) its line and column, and mark suppressed ones."""
    findings = ctx.findings if findings is None else findings
    if not findings:
        return
    ranges = ctx.locate({f.node for f in findings})
    lines = ctx.source.decode(ctx.module.encoding, "replace").splitlines()
    for finding in findings:
        rng = ranges.get(finding.node)
        change = finding.change
        if rng is not None:
            change.line, change.column = rng.start.line, rng.start.column + 1
            change.end_line, change.end_column = rng.end.line, rng.end.column + 1
        if _suppressed(lines, change):
            finding.suppressed = True
            change.message = SUPPRESSED_PREFIX + change.message


def _suppressed(lines: list[str], change: Change) -> bool:
    for number in range(max(change.line, 1), max(change.end_line, change.line) + 1):
        if number - 1 >= len(lines):
            break
        match = SUPPRESS.search(lines[number - 1])
        if match and (match.group(1) is None or change.rule in {r.strip() for r in match.group(1).split(",")}):
            return True
    return False


def accepted(finding: Finding, options: Options) -> bool:
    if finding.edit is None or finding.suppressed:
        return False
    return finding.change.safety is Safety.SAFE or (finding.change.safety is Safety.UNSAFE and options.unsafe_fixes)


#: Decides, per fixable change, whether its edit goes into the new text (``review``).
Keep = Callable[[Change], bool]


def rewrite(ctx: FileContext, keep: Optional[Keep] = None) -> Optional[cst.Module]:
    """Apply the accepted edits of ``ctx``; ``None`` when nothing is to change.

    ``keep``, when given, narrows the accepted edits further: only those of changes it
    returns true for are applied, and imports that only declined edits asked for are
    not added. ``ctx`` is left as it was, so this may be called again with another
    ``keep`` (to preview one change at a time, say).
    """
    options = ctx.options
    fixable = [f for f in ctx.findings if accepted(f, options)]
    chosen = fixable if keep is None else [f for f in fixable if keep(f.change)]
    # Changes sharing a link land together or not at all: one suppressed, unsafe without
    # --unsafe-fixes or declined in review holds back the rest (a rule converted without
    # its registration, a helper taking ctx without its callers passing it, would break).
    taken = {id(f) for f in chosen}
    held = {f.link for f in ctx.findings if f.link is not None and f.edit is not None and id(f) not in taken}
    if held:
        chosen = [f for f in chosen if f.link not in held]
    edits: dict[cst.CSTNode, list[Finding]] = {}
    for finding in chosen:
        edits.setdefault(finding.node, []).append(finding)
    for finding in fixable:
        finding.change.applied = False
    ctx.moot = set()
    notes = _notes(ctx, set())
    if not edits and not notes:
        return None
    module, removed = _apply_edits(ctx, edits, notes, chosen, fixable)
    moot = _moot_findings(ctx, removed)
    if moot and options.annotate and notes != (fewer := _notes(ctx, moot)):
        # A TODO for a site the rewrite removed would outlive it: apply again without.
        module, _removed = _apply_edits(ctx, edits, fewer, chosen, fixable)
    for finding in chosen:
        finding.change.applied = True
    ctx.moot = moot
    return module


def _notes(ctx: FileContext, moot: set[int]) -> dict[cst.CSTNode, list[str]]:
    """The ``# TODO(ccmigrate)`` comments --annotate adds: each statement's manual
    findings not yet written above it (none but for ``moot`` ones)."""
    notes: dict[cst.CSTNode, list[str]] = {}
    if not ctx.options.annotate:
        return notes
    wanted: dict[cst.CSTNode, list[str]] = {}
    for finding in ctx.findings:
        if finding.change.safety is Safety.MANUAL and not finding.suppressed and id(finding) not in moot:
            stmt = _statement_of(ctx, finding.node)
            text = f"{TODO_PREFIX}[{finding.change.rule}] {finding.change.message}"
            text = " ".join(text.split())
            if stmt is not None:
                wanted.setdefault(stmt, []).append(text)
    for stmt, texts in wanted.items():
        fresh = _fresh_notes(stmt, texts, ctx.module)
        if fresh:
            notes[stmt] = fresh
    return notes


def _apply_edits(ctx: FileContext, edits: dict, notes: dict, chosen: list[Finding], fixable: list[Finding]):
    """The new tree with ``edits`` and ``notes`` applied, imports and helpers added, and
    the original nodes edits removed; ``ctx`` is left as analysis left it."""
    # Edits may ask for imports and helpers while they run: undo that afterwards, so
    # the next call (another ``keep``) starts from the state analysis left.
    had_context = ctx.has_pending_imports
    scratch = ctx.codemod_context.scratch if had_context else {}
    saved_scratch = {key: list(value) if isinstance(value, list) else value for key, value in scratch.items()}
    saved_helpers = dict(ctx.helpers)
    saved_exported = set(ctx.exported_helpers)
    saved_pending = set(ctx._pending_imports)
    saved_dotted = set(ctx.dotted_removals)
    ctx.beside_imports = {}
    try:
        if len(chosen) < len(fixable) and had_context:
            _drop_declined_imports(ctx, fixable, chosen)
        apply = _Apply(ctx, edits, notes, ctx.paths_to([*edits, *notes]))
        module = ctx.module.visit(apply)
        module = _add_helpers(module, ctx.helpers, ctx.exported_helpers)
        if ctx.has_pending_imports:
            from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor

            wanted = ctx.codemod_context.scratch.get(AddImportsVisitor.CONTEXT_KEY)
            if wanted:
                before = module
                # LibCST sorts the aliases of one name together and fails on ``from m import
                # x`` asked for both plainly and ``as y``: such requests go in a second pass.
                first, again, seen = [], [], set()
                for item in wanted:
                    key = (item.module_name, item.obj_name)
                    (again if key in seen and item.obj_name is not None else first).append(item)
                    seen.add(key)
                for batch in (first, again) if again else (first,):
                    ctx.codemod_context.scratch[AddImportsVisitor.CONTEXT_KEY] = batch
                    module = AddImportsVisitor(ctx.codemod_context).transform_module(module)
                ctx.codemod_context.scratch[AddImportsVisitor.CONTEXT_KEY] = wanted
                module = _drop_unread_additions(before, module, frozenset(b.local for b in ctx.names.imports if b.top_level))
                module = _keep_after_prelude_code(before, module)
                module = _into_import_guard(before, module)
                module = _into_importing_branch(before, module)
            removals = ctx.codemod_context.scratch.get(RemoveImportsVisitor.CONTEXT_KEY)
            if removals:
                before = module
                for batch in _removal_batches(removals):
                    ctx.codemod_context.scratch[RemoveImportsVisitor.CONTEXT_KEY] = batch
                    module = RemoveImportsVisitor(ctx.codemod_context).transform_module(module)
                ctx.codemod_context.scratch[RemoveImportsVisitor.CONTEXT_KEY] = removals
                module = _keep_lines_of_removed_imports(before, module, ctx.module)
                module = _drop_emptied_guards(ctx.module, module)
        if ctx.dotted_removals:
            module = _drop_unused_dotted_imports(module, ctx.dotted_removals)
        module = _no_blank_top(ctx.module, module)
    finally:
        if had_context:
            scratch.clear()
            scratch.update(saved_scratch)
        else:
            ctx._codemod_context = None
        ctx.helpers = saved_helpers
        ctx.exported_helpers = saved_exported
        ctx._pending_imports = saved_pending
        ctx.dotted_removals = saved_dotted
        ctx.beside_imports = {}
    return module, apply.removed


def _moot_findings(ctx: FileContext, removed: set) -> set[int]:
    """Manual findings about code the rewrite removed (a private helper of XlaBuilder
    constants whose every call was inlined), and those that only served them: the
    report would name sites the new text no longer has."""
    if not removed:
        return set()
    moot = {id(f) for f in ctx.findings if f.change.safety is Safety.MANUAL
            and any(node in removed for node in (f.node, *ctx.ancestors_of(f.node)))}
    moot |= {id(f) for f in ctx.findings if f.serves and all(id(u) in moot for u in f.serves)}
    return moot


def _drop_unused_dotted_imports(module: cst.Module, dotted: set[str]) -> cst.Module:
    """Remove ``import a.b.c`` aliases (no ``as``, at any depth) of ``dotted`` modules that
    no attribute chain of the new text spells any more."""

    def spelt_in(node: cst.CSTNode, names_read: Optional[set[str]] = None, lazy: Optional[list] = None) -> set[str]:
        """The ``dotted`` modules an attribute chain in ``node`` spells (imports aside);
        the names it reads go to ``names_read``, imports of them inside a function to ``lazy``."""
        found: set[str] = set()

        class _Spelt(_OutsideImports):
            depth = 0

            def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
                self.depth += 1

            def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
                self.depth -= 1

            def visit_Import(self, node: cst.Import) -> bool:
                if lazy is not None and self.depth and any(get_full_name_for_node(a.name) in dotted for a in node.names):
                    lazy.append(node)
                return False

            def visit_Attribute(self, node: cst.Attribute) -> bool:
                name = get_full_name_for_node(node) or ""
                found.update(d for d in dotted if name == d or name.startswith(d + "."))
                return True

            def visit_Name(self, node: cst.Name) -> None:
                if names_read is not None:
                    names_read.add(node.value)

        walk.read(node, _Spelt())
        return found

    names_read: set[str] = set()
    lazy: list[cst.Import] = []
    gone = dotted - spelt_in(module, names_read, lazy)
    # An import inside a function serves that function alone: it goes once its body spells
    # the module no more, whatever another function (a branch for older jax) still spells.
    if not gone and not lazy:
        return module

    # ``import jax.lib.xla_client`` also binds ``jax``: when the new text reads ``jax`` and
    # no other import binds it, the alias becomes ``import jax``.
    kept_roots = set()
    for stmt in module.body:
        if import_line(stmt):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for a in small.names:
                        full = get_full_name_for_node(a.name) or ""
                        if a.asname is None and full not in gone:
                            kept_roots.add(full.split(".")[0])
    class _Drop(cst.CSTTransformer):
        def __init__(self) -> None:
            self.changed = False
            self.depth = 0
            #: Names each enclosing function reads (innermost last): an import inside a
            #: function binds the root for that function only.
            self.function_reads: list[set[str]] = []
            #: Each enclosing function's body, and the requested modules it spells no
            #: more once an import in it asks (innermost last).
            self.functions: list[list] = []
            self.removed: set[int] = set()

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.function_reads.append(walk.reads_in(node.body))
            self.functions.append([node.body, None])

        def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
            self.function_reads.pop()
            self.functions.pop()
            return updated

        def _gone_here(self) -> set[str]:
            if not self.functions:
                return gone
            innermost = self.functions[-1]
            if innermost[1] is None:
                innermost[1] = dotted - spelt_in(innermost[0])
            return innermost[1]

        def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
            self.depth += 1

        def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
            self.depth -= 1
            if not updated.body:
                return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
            if id(original.body[0]) in self.removed:
                # The block's first line went: the blank lines that set it apart from what
                # followed would now open the block.
                first = updated.body[0]
                lines = list(first.leading_lines)
                while lines and lines[0].comment is None:
                    lines.pop(0)
                return updated.with_changes(body=[first.with_changes(leading_lines=lines), *updated.body[1:]])
            return updated

        def _kept_names(self, statement: cst.Import) -> Optional[list]:
            """The aliases of ``statement`` that stay; None when none goes."""
            names = []
            here = False
            for a in statement.names:
                full = get_full_name_for_node(a.name) or ""
                if a.asname is not None or full not in dotted or full not in self._gone_here():
                    names.append(a)
                    continue
                self.changed = here = True
                root = full.split(".")[0]
                read = root in (self.function_reads[-1] if self.function_reads else names_read)
                if read and (self.depth or root not in kept_roots):
                    names.append(a.with_changes(name=cst.Name(root)))
                    if not self.depth:
                        kept_roots.add(root)
            if not here:
                return None
            if names:
                names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return names

        def leave_SimpleStatementLine(self, original, updated):
            # Each import of the line (``import a.b; import a.c`` has two) keeps its own aliases.
            body = []
            here = False
            for small in updated.body:
                names = self._kept_names(small) if isinstance(small, cst.Import) else None
                if names is None:
                    body.append(small)
                    continue
                here = True
                if names:
                    body.append(small.with_changes(names=names))
            if not here:
                return updated
            if not body:
                self.removed.add(id(original))
                return cst.RemovalSentinel.REMOVE
            body[-1] = body[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(body=body)

    drop = _Drop()
    new = module.visit(drop)
    return new if drop.changed else module


def _removal_batches(removals: list) -> list[list]:
    """LibCST's RemoveImportsVisitor keeps one ``as`` name per module of a plain import
    (the last asked for): ``import m as a`` and ``import m as b`` both unused lose only
    one. Each further name of the same module goes in a later pass."""
    batches: list[list] = []
    for removal in removals:
        module, obj, asname = removal
        for batch in batches:
            if obj is not None or not any(m == module and o is None and n != asname for m, o, n in batch):
                batch.append(removal)
                break
        else:
            batches.append([removal])
    return batches


def _keep_after_prelude_code(before: cst.Module, after: cst.Module) -> cst.Module:
    """Move imports LibCST added above code that runs before the module imports jax.

    ``import os; os.environ["JAX_ENABLE_X64"] = "1"; from jax.lib import xla_client``:
    LibCST puts a new ``import jax`` after ``import os``, so jax would read its
    configuration before the variable is set. The new imports go just above the first
    jax/jaxlib import instead.
    """
    added = len(after.body) - len(before.body)
    if added <= 0:
        return after
    first_jax = next((i for i, stmt in enumerate(before.body) if _imports_jax(stmt)), None)
    if first_jax is None:
        return after
    # Where LibCST put the block: everything after it is the old statements, unchanged.
    start = None
    for k in range(first_jax, -1, -1):
        if not _same_statement(after.body[k + added], before.body[k]):
            break
        start = k
    if start is None or not any(_is_code(stmt, i) for i, stmt in enumerate(before.body[start:first_jax], start)):
        return after
    block = list(after.body[start : start + added])
    # The statements keep the blank lines they had; the block takes the first jax import's,
    # which keeps the comments right above it (a TODO annotating it, say).
    rest = [*after.body[:start], *before.body[start:]]
    anchor = rest[first_jax]
    lines = list(anchor.leading_lines)
    split = len(lines)
    while split > 0 and lines[split - 1].comment is not None:
        split -= 1
    block[0] = block[0].with_changes(leading_lines=lines[:split])
    rest[first_jax] = anchor.with_changes(leading_lines=lines[split:])
    return after.with_changes(body=[*rest[:first_jax], *block, *rest[first_jax:]])


def _guard_block(stmt: cst.CSTNode) -> Optional[cst.IndentedBlock]:
    """The block of a module-level ``if <jax is available>:`` (no ``else``; not
    ``TYPE_CHECKING`` nor a version test) or ``try:`` whose own statements import jax (an
    optional dependency: PyBaMM's ``if pybamm.have_jax():``)."""
    if not isinstance(stmt, (cst.If, cst.Try)) or not isinstance(stmt.body, cst.IndentedBlock):
        return None
    if isinstance(stmt, cst.If):
        test = cst.Module([]).code_for_node(stmt.test)
        if stmt.orelse is not None or "TYPE_CHECKING" in test or "version" in test:
            return None
    return stmt.body if any(_imports_jax(inner) for inner in stmt.body.body) else None


def _jax_imports_outside(module: cst.Module, blocks: list) -> bool:
    """Whether some statement importing jax lies outside ``blocks`` (in a function, say)."""
    found = []

    class _Find(cst.CSTVisitor):
        def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
            return not any(node is block for block in blocks)

        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            if _imports_jax(node):
                found.append(node)

    module.visit(_Find())
    return bool(found)


def _into_import_guard(before: cst.Module, after: cst.Module) -> cst.Module:
    """Move the jax imports LibCST added at the top of a module that imports jax only in
    guarded blocks into the first of them, after its last jax import: at the top they
    would make the module fail to import where jax is not installed, which the guard
    allowed. Every jax import of the module must be in such a block."""
    guards = [_guard_block(stmt) for stmt in before.body]
    blocks = [g for g in guards if g is not None]
    if not blocks or _jax_imports_outside(before, blocks):
        return after
    added = [stmt for stmt in after.body if _imports_jax(stmt)]
    if not added:
        return after
    first = next(i for i, g in enumerate(guards) if g is not None)
    body = [stmt for stmt in after.body if not _imports_jax(stmt)]
    # The guard is where it was among the statements that are not added imports.
    index = next((k for k, stmt in enumerate(body) if isinstance(stmt, type(before.body[first]))
                  and _guard_block(stmt) is not None), None)
    if index is None:
        return after
    guard = body[index]
    inner = list(guard.body.body)
    last = max(k for k, stmt in enumerate(inner) if _imports_jax(stmt))
    inner[last + 1:last + 1] = [stmt.with_changes(leading_lines=[]) for stmt in added]
    body[index] = guard.with_changes(body=guard.body.with_changes(body=inner))
    return after.with_changes(body=body)


def _chain(stmt: cst.If) -> list[tuple[Optional[cst.BaseExpression], cst.BaseSuite]]:
    """The tests and blocks of an ``if``/``elif``/``else`` chain, in order (``else`` has no test)."""
    links: list[tuple[Optional[cst.BaseExpression], cst.BaseSuite]] = []
    link: Optional[cst.CSTNode] = stmt
    while isinstance(link, cst.If):
        links.append((link.test, link.body))
        link = link.orelse
    if link is not None:
        links.append((None, link.body))
    return links


def _into_importing_branch(before: cst.Module, after: cst.Module) -> cst.Module:
    """Move a ``from m import name`` LibCST added at the top into the one branch of a
    module-level ``if`` that reads ``name``, when that branch imports what it needs itself.

    ``if jax.__version_info__ >= (0, 4, 14): from ... import ir_constant; p =
    jax.core.Primitive("p")`` (else: the code for older releases): the new ``from
    jax.extend.core import Primitive`` goes after the branch's own imports, so the module
    still imports on the releases the other branch serves, as it did. Nothing moves when
    the name is read anywhere else (another branch, a test, ``__all__``), or when the
    branch imports nothing before its first use of the name."""
    old = {key for _alias, key in _import_aliases(before.body)}
    added = [i for i, stmt in enumerate(after.body)
             if import_line(stmt) and all(isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar)
                                          for small in stmt.body)
             and not any(key in old for _alias, key in _import_aliases([stmt]))]
    if not added:
        return after
    text = after.code
    body = list(after.body)
    moves: dict[int, tuple[int, int, int]] = {}  # added index -> (if index, branch, position)
    for i in added:
        names = {_alias_binding(alias) for small in body[i].body for alias in small.names}
        if any(f"'{name}'" in text or f'"{name}"' in text for name in names):
            continue
        users = [j for j, stmt in enumerate(body) if j != i and names & walk.names_in(stmt)]
        if len(users) != 1 or not isinstance(body[users[0]], cst.If) or users[0] < i:
            continue
        links = _chain(body[users[0]])
        if any(test is not None and (names & walk.names_in(test) or "TYPE_CHECKING" in cst.Module([]).code_for_node(test))
               for test, _block in links):
            continue
        reading = [k for k, (_test, block) in enumerate(links) if names & walk.names_in(block)]
        if len(reading) != 1 or not isinstance(links[reading[0]][1], cst.IndentedBlock):
            continue
        inner = links[reading[0]][1].body
        first = next(k for k, stmt in enumerate(inner) if names & walk.names_in(stmt))
        last = max((k for k, stmt in enumerate(inner[:first]) if import_line(stmt)), default=None)
        if last is not None:
            moves[i] = (users[0], reading[0], last + 1)
    if not moves:
        return after
    for i, (j, branch, position) in sorted(moves.items(), key=lambda item: -item[1][2]):
        block = _chain(body[j])[branch][1]
        inner = list(block.body)
        inner.insert(position, body[i].with_changes(leading_lines=[]))
        body[j] = _with_branch(body[j], branch, block.with_changes(body=inner))
    # Blank lines above a moved import go to the statement that follows it.
    kept = []
    carried: list = []
    for i, stmt in enumerate(body):
        if i in moves:
            carried = carried or list(stmt.leading_lines)
            continue
        if carried and i - 1 in moves and not list(stmt.leading_lines):
            stmt = stmt.with_changes(leading_lines=carried)
        carried = []
        kept.append(stmt)
    return after.with_changes(body=kept)


def _with_branch(chain: cst.If, index: int, block: cst.BaseSuite) -> cst.If:
    if index == 0:
        return chain.with_changes(body=block)
    orelse = chain.orelse
    if isinstance(orelse, cst.If):
        return chain.with_changes(orelse=_with_branch(orelse, index - 1, block))
    assert isinstance(orelse, cst.Else) and index == 1
    return chain.with_changes(orelse=orelse.with_changes(body=block))


def _no_blank_top(original: cst.Module, module: cst.Module) -> cst.Module:
    """When the first statements were removed, the file does not start with a blank line."""
    if not module.body or module.header or not original.body or original.body[0] is module.body[0]:
        return module
    first = module.body[0]
    lines = list(getattr(first, "leading_lines", ()))
    if original.header or not lines or lines[0].comment is not None:
        return module
    old_lines = getattr(original.body[0], "leading_lines", ())
    if old_lines and old_lines[0].comment is None:
        return module  # the file started with a blank line before
    while lines and lines[0].comment is None:
        lines.pop(0)
    return module.with_changes(body=[first.with_changes(leading_lines=lines), *module.body[1:]])


def _keep_lines_of_removed_imports(before: cst.Module, after: cst.Module, original: cst.Module) -> cst.Module:
    """Blank lines and comments above an import LibCST removed go to the next statement
    (unless that is an import a rule just added: it joins the group above)."""
    if len(after.body) >= len(before.body):
        return after
    bare = lambda module, stmt: positions.code_for_node(module, stmt.with_changes(leading_lines=()))  # noqa: E731
    old_imports = {bare(original, stmt) for stmt in original.body if import_line(stmt)}
    body = list(after.body)
    j = 0
    pending: list = []
    for i, stmt in enumerate(before.body):
        if j < len(body) and (_same_statement(body[j], stmt) or _both_imports(body[j], stmt)):
            commented = any(line.comment is not None for line in pending)
            added = import_line(body[j]) and bare(after, body[j]) not in old_imports
            if pending and not body[j].leading_lines and (commented or not added):
                body[j] = body[j].with_changes(leading_lines=pending)
            elif commented:
                body[j] = body[j].with_changes(leading_lines=[*pending, *body[j].leading_lines])

            pending = []
            j += 1
        elif import_line(stmt):
            pending = pending or list(stmt.leading_lines)
        else:
            return after  # not a plain removal: leave LibCST's result alone
    return after.with_changes(body=body)


def _both_imports(a: cst.CSTNode, b: cst.CSTNode) -> bool:
    """The same import statement with some names taken out."""
    if not (import_line(a) and import_line(b)) or len(a.body) != len(b.body):
        return False
    for x, y in zip(a.body, b.body):
        if type(x) is not type(y):
            return False
        if isinstance(x, cst.ImportFrom) and not (x.module and y.module and x.module.deep_equals(y.module) and len(x.relative) == len(y.relative)):
            return False
    return True


def _same_statement(a: cst.CSTNode, b: cst.CSTNode) -> bool:
    if a is b:
        return True
    if type(a) is not type(b) or not hasattr(a, "leading_lines"):
        return False
    return a.with_changes(leading_lines=()).deep_equals(b.with_changes(leading_lines=()))


def _imports_jax(stmt: cst.CSTNode) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        if isinstance(small, cst.Import) and any(_under(get_full_name_for_node(a.name) or "", ("jax", "jaxlib")) for a in small.names):
            return True
        if isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None \
                and _under(get_full_name_for_node(small.module) or "", ("jax", "jaxlib")):
            return True
    return False


def _is_code(stmt: cst.CSTNode, index: int) -> bool:
    """A statement that runs before the imports below it (not an import or the docstring)."""
    return not (_is_prelude(stmt, index) or isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.ImportFrom))


def _drop_declined_imports(ctx: FileContext, fixable: list[Finding], chosen: list[Finding]) -> None:
    kept = {id(f) for f in chosen}
    wanted = {key for f in chosen for key in f.imports}
    declined = {key for f in fixable if id(f) not in kept for key in f.imports} - wanted
    if not declined:
        return
    ctx._pending_imports -= {key for key in declined if len(key) == 4}
    from libcst.codemod.visitors import AddImportsVisitor

    scratch = ctx.codemod_context.scratch
    scratch[AddImportsVisitor.CONTEXT_KEY] = [
        item
        for item in scratch.get(AddImportsVisitor.CONTEXT_KEY, [])
        if (item.module_name, item.obj_name, item.alias) not in declined
    ]


def _statement_of(ctx: FileContext, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    for current in (node, *reversed(ctx.ancestors_of(node))):
        if isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return current
    return None


def _comments_above(stmt: cst.CSTNode, module: Optional[cst.Module] = None) -> list[str]:
    lines = list(getattr(stmt, "leading_lines", ()))
    if module is not None and module.body and stmt is module.body[0]:
        # Comment lines above a file's first statement are the module's header when parsed.
        lines = [*module.header, *lines]
    return [line.comment.value for line in lines if line.comment is not None]


def _fresh_notes(stmt: cst.CSTNode, texts: list[str], module: cst.Module) -> list[str]:
    """The TODO comments ``stmt`` still lacks, of the findings on it worded ``texts``.

    A finding whose exact text is above the statement is annotated. So is one an earlier
    run annotated in other words (a re-export's note lists the modules still using the
    name, and that run migrated some of them): a TODO that matches no finding exactly
    and says the same but for its quoted names (:func:`_same_subject`) stands for it.
    Rewriting it would make every run change the file again; it is the user's to delete
    once acted on.
    """
    existing = _comments_above(stmt, module)
    stale = [c for c in existing if c.startswith(TODO_PREFIX + "[") and c not in texts]
    fresh = []
    for text in texts:
        if text in existing or text in fresh:
            continue  # two findings worded the same on one statement: one note
        earlier = next((c for c in stale if _same_subject(c, text)), None)
        if earlier is not None:
            stale.remove(earlier)
            continue
        fresh.append(text)
    return fresh


_QUOTED = re.compile(r"`[^`]*`")


def _same_subject(earlier: str, text: str) -> bool:
    """Whether an earlier TODO is ``text`` reworded: the same rule and the same wording
    for the first 160 characters once the quoted names and code are set aside (a
    re-export's note lists the modules still using it; the reason for a finding is
    wording, and a different one is another finding)."""
    def skeleton(message: str) -> str:
        return " ".join(_QUOTED.sub("", message).split())[:160]

    return skeleton(earlier) == skeleton(text)


class _Apply(cst.CSTTransformer):
    def __init__(self, ctx: FileContext, edits: dict, notes: dict, paths: Optional[set] = None) -> None:
        super().__init__()
        self.ctx = ctx
        self.module = ctx.module
        self.edits = edits
        self.notes = notes
        # Nodes on the way from the module to an edit; ``None`` walks everything.
        self.paths = paths
        #: Comment lines above statements the edits removed, for the statement after them.
        self.carried: dict[cst.CSTNode, list[cst.EmptyLine]] = {}
        #: Original nodes an edit removed whole (a helper every caller stopped using).
        self.removed: set = set()
        #: Original statements an edit replaced by several: how many.
        self.flattened: dict[cst.CSTNode, int] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        # Subtrees holding no edit are kept as they are, unvisited: most of a file.
        return self.paths is None or node in self.paths

    def on_leave(self, original_node, updated_node):
        node = updated_node
        for finding in self.edits.get(original_node, ()):
            if not isinstance(node, cst.CSTNode):
                # An earlier edit removed the node (two rules dropping one import, say):
                # the later edit has nothing left to change.
                finding.change.after = ""
                continue
            # The names the edit asks for are used at its node.
            self.ctx.site = original_node
            try:
                node = finding.edit(node)
            finally:
                self.ctx.site = None
            if isinstance(node, cst.CSTNode):
                finding.change.after = positions.code_for_node(self.module, node)
            elif isinstance(node, cst.FlattenSentinel):
                # A statement replaced by others (a ``with`` by its block): nothing removed.
                finding.change.after = "".join(positions.code_for_node(self.module, n) for n in node.nodes)
                self.flattened[original_node] = len(node.nodes)
            else:
                self.removed.add(original_node)
        for text in self.notes.get(original_node, ()):
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                line = cst.EmptyLine(comment=cst.Comment(text))
                node = node.with_changes(leading_lines=[*node.leading_lines, line])
        if isinstance(node, cst.SimpleStatementLine) and node.body and len(node.body) < len(original_node.body) \
                and isinstance(node.body[-1].semicolon, cst.Semicolon):
            # ``import jax.core; import jax.xla`` with the last statement removed: no
            # dangling ``;`` after the one left.
            node = node.with_changes(body=[*node.body[:-1], node.body[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
        beside = self.ctx.beside_imports.pop(original_node, None) if isinstance(original_node, cst.SimpleStatementLine) else None
        if beside:
            node = self._with_imports_after(original_node, node, beside)
        # A removed definition takes its comments along (they describe it); a removed simple
        # statement leaves them to the next one (``# Enable x64`` above a config import).
        if isinstance(original_node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and (
                not isinstance(node, (cst.CSTNode, cst.FlattenSentinel))
                or (isinstance(node, cst.SimpleStatementLine) and not node.body)):
            lines = [line for line in original_node.leading_lines
                     if not (line.comment is not None and line.comment.value.startswith(TODO_PREFIX))]
            # Blank lines alone go too: the one that set an import group apart still does.
            # A removed compound statement keeps its comments but leaves the blank lines
            # above them.
            if not isinstance(original_node, cst.SimpleStatementLine):
                first_comment = next((i for i, line in enumerate(lines) if line.comment is not None), len(lines))
                lines = lines[:first_comment]
            self.carried[original_node] = lines
        if self.carried and isinstance(original_node, (cst.Module, cst.IndentedBlock)) and isinstance(node, type(original_node)):
            node = _carry_comments(original_node, node, self.carried, self.flattened)
        if isinstance(original_node, cst.IndentedBlock) and isinstance(node, cst.IndentedBlock):
            node = _no_blank_block_top(original_node, node)
        if isinstance(original_node, cst.FunctionDef) and isinstance(node, cst.FunctionDef):
            # Every edit inside the function has run: the imports they need are known.
            wanted = self.ctx.function_imports(original_node)
            if wanted:
                node = _add_function_imports(node, original_node, wanted, self.ctx.import_position(original_node))
        return node

    def _with_imports_after(self, original: cst.SimpleStatementLine, node, wanted):
        """``node`` followed by the imports an edit of it moved out (grouped by module, in
        the order asked); they take its place, and its leading lines, when it is gone."""
        groups: dict[tuple[str, bool], list[tuple[Optional[str], Optional[str]]]] = {}
        for module, obj, asname in wanted:
            groups.setdefault((module, obj is None), []).append((obj, asname))

        def alias(name: str, bound: str, asname: Optional[str]) -> cst.ImportAlias:
            # ``as`` only where it binds another name than the import would.
            return cst.ImportAlias(name=cst.parse_expression(name),
                                   asname=cst.AsName(name=cst.Name(asname)) if asname and asname != bound else None)

        lines = []
        for (module, plain), names in groups.items():
            if plain:
                small = cst.Import(names=[alias(module, module.split(".")[0], asname) for _obj, asname in names])
            else:
                small = cst.ImportFrom(module=cst.parse_expression(module),
                                       names=[alias(obj, obj, asname) for obj, asname in names])
            lines.append(cst.SimpleStatementLine(body=[small]))
        if isinstance(node, cst.SimpleStatementLine) and node.body:
            lines.insert(0, node)
        else:
            lines[0] = lines[0].with_changes(leading_lines=original.leading_lines)
        self.flattened[original] = len(lines)
        return cst.FlattenSentinel(lines) if len(lines) > 1 else lines[0]


def _blank_first(stmt: cst.CSTNode) -> bool:
    lines = getattr(stmt, "leading_lines", ())
    return bool(lines) and lines[0].comment is None


def _no_blank_block_top(original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
    """A block whose first statement an edit removed (``from jax.util import ...`` at the
    top of a function) does not start with the blank line that followed it."""
    if not updated.body or not original.body or _blank_first(original.body[0]) or not _blank_first(updated.body[0]):
        return updated
    lines = list(updated.body[0].leading_lines)
    while lines and lines[0].comment is None:
        lines.pop(0)
    return updated.with_changes(body=[updated.body[0].with_changes(leading_lines=lines), *updated.body[1:]])


def _carry_comments(original, updated, carried: dict, flattened: Optional[dict] = None):
    """The comment lines above a statement an edit removed head the statement after it, as
    when a linter deletes a line: the comment may describe more than the line (ruff keeps
    them too). Statements are matched in order: edits replace or remove, never reorder; a
    removed one is gone from ``updated`` or left there as a line with no statement, one
    in ``flattened`` became that many."""
    old, new = list(original.body), list(updated.body)
    if not any(carried.get(stmt) for stmt in old):
        for stmt in old:
            carried.pop(stmt, None)
        return updated
    body, pending, j = [], [], 0
    for stmt in old:
        emptied = j < len(new) and isinstance(new[j], cst.SimpleStatementLine) and not new[j].body
        if stmt in carried:
            pending.extend(carried.pop(stmt))
            if emptied:
                body.append(new[j])  # libcst leaves it out of the text
                j += 1
            continue
        if j >= len(new):
            return updated  # not the statements expected: leave the comments to LibCST
        kept = new[j]
        j += 1
        extra = (flattened or {}).get(stmt, 1) - 1
        if pending and not emptied:
            if any(line.comment is not None for line in pending) or not kept.leading_lines:
                kept = kept.with_changes(leading_lines=[*pending, *kept.leading_lines])
            pending = []
        body.append(kept)
        body.extend(new[j:j + extra])
        j += extra
    return updated.with_changes(body=body) if j == len(new) else updated


def _add_function_imports(function: cst.FunctionDef, original: cst.FunctionDef, wanted, after: Optional[int]) -> cst.FunctionDef:
    """Insert ``import`` statements for ``wanted`` into ``function``'s body, after what was
    statement ``after`` of the ``original`` body (at the top, past a docstring, for ``None``).

    A module that imports a package only inside functions stays importable without it.
    An import already there is not added twice.
    """
    old = original.body.body
    body = list(function.body.body)
    code = cst.Module([]).code_for_node
    smalls = [small for stmt in body for small in (stmt.body if isinstance(stmt, cst.SimpleStatementLine) else [stmt])]
    present = {code(s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)).strip() for s in smalls if isinstance(s, (cst.Import, cst.ImportFrom))}
    plain = [f"import {m}" + (f" as {a}" if a else "") for m, o, a in wanted if o is None]
    names: dict[str, list[str]] = {}
    for module, obj, asname in wanted:
        if obj is not None:
            names.setdefault(module, []).append(obj + (f" as {asname}" if asname else ""))
    froms = [f"from {m} import {', '.join(n)}" for m, n in names.items()]
    new = [cst.parse_statement(code) for code in [*plain, *froms] if code not in present]
    if not new:
        return function
    if isinstance(function.body, cst.SimpleStatementSuite):
        # ``def f(): return ...`` stays on one line: ``def f(): import jax; return ...``.
        smalls = [stmt.body[0].with_changes(semicolon=cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" "))) for stmt in new]
        return function.with_changes(body=function.body.with_changes(body=[*smalls, *body]))
    if after is None:
        docstring = bool(old) and _is_prelude(old[0], 0) and not import_line(old[0])
        position = 1 if docstring and body and body[0] is old[0] else 0
    elif any(stmt is old[after] for stmt in body):
        position = next(i for i, stmt in enumerate(body) if stmt is old[after]) + 1
    elif len(body) == len(old):
        position = after + 1  # an edit replaced the anchor statement, one for one
    else:
        # Edits removed statements: find where the anchor was through the statements
        # they left untouched.
        ids = {id(stmt): i for i, stmt in enumerate(old)}
        position = len(body)
        for index, stmt in enumerate(body):
            if ids.get(id(stmt), -1) > after:
                position = index
                break
        if body and position == len(body):
            kept = [i for i, stmt in enumerate(body) if ids.get(id(stmt), len(old)) <= after]
            position = kept[-1] + 1 if kept else position
    return function.with_changes(body=function.body.with_changes(body=[*body[:position], *new, *body[position:]]))


def _add_helpers(module: cst.Module, helpers: dict[str, str], exported: frozenset[str] = frozenset()) -> cst.Module:
    """Define the helpers the new text calls (a rule asks for one while planning an edit
    that may still be declined: an uncalled helper is not added), and the ``exported``
    ones whatever reads them, after the imports at the top of the module."""
    defined = {s.name.value for s in module.body if isinstance(s, cst.FunctionDef)}
    missing = {name: code for name, code in helpers.items() if name not in defined}
    if not missing:
        return module
    called = _names_read(module) | set(exported)
    wanted: set[str] = set()
    pending = [name for name in missing if name in called]
    while pending:
        name = pending.pop()
        if name not in wanted:
            wanted.add(name)
            # A helper may call another one.
            pending.extend(other for other in missing if other != name and re.search(rf"\b{re.escape(other)}\b", missing[name]))
    new = [cst.parse_statement(code) for name, code in missing.items() if name in wanted]
    if not new:
        return module
    body = list(module.body)
    index = 0
    for i, stmt in enumerate(body):
        if _is_prelude(stmt, i) or _is_import_guard(stmt):
            index = i + 1
        elif not _is_dunder_assignment(stmt):
            break
    # PEP 8: two blank lines before each helper (the module's header may end in some).
    header_blank = 0
    while index == 0 and header_blank < min(2, len(module.header)) and module.header[-1 - header_blank].comment is None:
        header_blank += 1
    new = [helper.with_changes(leading_lines=[cst.EmptyLine()] * (2 - header_blank if k == 0 else 2))
           for k, helper in enumerate(new)]
    rest = body[index:]
    if rest:
        # PEP 8: two blank lines between the helper and whatever follows it.
        lines = list(rest[0].leading_lines)
        blank = 0
        while blank < len(lines) and lines[blank].comment is None:
            blank += 1
        if blank < 2:
            lines[:blank] = [cst.EmptyLine(), cst.EmptyLine()]
            rest = [rest[0].with_changes(leading_lines=lines), *rest[1:]]
    return module.with_changes(body=[*body[:index], *new, *rest])


def _is_dunder_assignment(stmt: cst.CSTNode) -> bool:
    """``__all__ = [...]`` / ``__version__ = "1.0"`` among a module's imports."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
        return False
    targets = stmt.body[0].targets
    return all(isinstance(t.target, cst.Name) and t.target.value.startswith("__") and t.target.value.endswith("__")
               for t in targets)


def _is_import_guard(stmt: cst.CSTNode) -> bool:
    """``try: from . import ext`` / ``except ImportError: HAS_EXT = False`` (else/finally
    too): imports and the flags they set, nothing else."""
    smalls = _try_smalls(stmt)
    if smalls is None:
        return False
    allowed = (cst.Import, cst.ImportFrom, cst.Pass, cst.Assign)
    return all(isinstance(small, allowed) for small in smalls) and any(isinstance(small, (cst.Import, cst.ImportFrom))
                                                                      for small in smalls)


def _try_smalls(stmt: cst.CSTNode) -> Optional[list[cst.BaseSmallStatement]]:
    """The small statements of every block of a ``try`` (body, handlers, else, finally);
    ``None`` for anything else, or when a block holds a compound statement."""
    if not isinstance(stmt, cst.Try):
        return None
    blocks = [stmt.body, *(h.body for h in stmt.handlers)]
    blocks += [part.body for part in (stmt.orelse, stmt.finalbody) if part is not None]
    smalls = []
    for block in blocks:
        for line in block.body if isinstance(block, cst.IndentedBlock) else [block]:
            if not isinstance(line, cst.SimpleStatementLine):
                return None
            smalls.extend(line.body)
    return smalls


def _alias_binding(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return get_full_name_for_node(alias.asname.name) or ""
    return (get_full_name_for_node(alias.name) or "").split(".")[0]


def _import_aliases(statements: Sequence[cst.CSTNode]):
    """Each alias of the import lines among ``statements`` (star imports name none), with
    a key that tells one import from another across two versions of a module."""
    for stmt in statements:
        if import_line(stmt):
            for small in stmt.body:
                if not isinstance(small.names, cst.ImportStar):
                    source = cst.Module([]).code_for_node(small.module) if isinstance(small, cst.ImportFrom) and small.module else ""
                    for alias in small.names:
                        yield alias, (len(getattr(small, "relative", ())), source, alias.evaluated_name,
                                      alias.evaluated_alias)


def _drop_unread_additions(before: cst.Module, after: cst.Module, exported: frozenset[str] = frozenset()) -> cst.Module:
    """Module-level imports an edit asked for that nothing in the new text reads: an
    outer edit rebuilt the code an inner one had rewritten (a translation registration
    through ``jax.xla`` becomes ``mlir.register_lowering``, and the ``xla`` the move of
    ``jax.xla`` wanted is read nowhere). An import this run added is never left unused,
    except one binding a name the module's own imports bound (``exported``): it stands
    for the moved import, which another module may import from this one
    (``from .compat import ShapedArray``)."""
    before_keys = {key for _alias, key in _import_aliases(before.body)}
    added = [alias for alias, key in _import_aliases(after.body) if key not in before_keys]
    if not added:
        return after
    read = walk.reads_in(after)
    text = after.code
    unread = {id(alias) for alias in added
              if (name := _alias_binding(alias)) not in read and name not in exported
              and f"'{name}'" not in text and f'"{name}"' not in text}
    if not unread:
        return after

    def without(original, updated):
        kept = [new for old, new in zip(original.names, updated.names) if id(old) not in unread]
        if len(kept) == len(updated.names):
            return updated
        if not kept:
            return cst.RemoveFromParent()
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=kept)

    class _Drop(cst.CSTTransformer):
        def leave_Import(self, original, updated):
            return without(original, updated)

        def leave_ImportFrom(self, original, updated):
            return updated if isinstance(updated.names, cst.ImportStar) else without(original, updated)

    return after.visit(_Drop())


def _only_pass(stmt: cst.CSTNode) -> bool:
    """``try: pass`` / ``except ImportError: pass``: every block holds only ``pass``."""
    smalls = _try_smalls(stmt)
    return smalls is not None and all(isinstance(small, cst.Pass) for small in smalls)


def _has_only_pass_try(module: cst.Module) -> bool:
    class _Find(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.found = False

        def visit_Try(self, node: cst.Try) -> None:
            self.found = self.found or _only_pass(node)

    finder = _Find()
    walk.read(module, finder)
    return finder.found


def _drop_emptied_guards(original: cst.Module, module: cst.Module) -> cst.Module:
    """An import guard whose imports all went (``try: from jax.interpreters import mlir``
    / ``except ImportError: from jax._src.interpreters import mlir`` once nothing reads
    ``mlir``) is left as ``try: pass / except ImportError: pass`` by LibCST's import
    removal: it does nothing, so it goes, with its comments. Only when the original module
    had no such statement of its own (the author's are not this run's to tidy). A read-only
    walk looks first: the transform runs only where there is one to drop."""
    if not _has_only_pass_try(module) or _has_only_pass_try(original):
        return module

    class _Drop(cst.CSTTransformer):
        def leave_Try(self, node: cst.Try, updated: cst.Try):
            return cst.RemoveFromParent() if _only_pass(updated) else updated

        def leave_IndentedBlock(self, node, updated: cst.IndentedBlock):
            return updated if updated.body else updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])

    return module.visit(_Drop())


def _names_read(module: cst.Module) -> set[str]:
    found: set[str] = set()

    class _Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

    module.visit(_Names())
    return found


def _is_prelude(stmt: cst.CSTNode, index: int) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    small = stmt.body[0]
    if isinstance(small, (cst.Import, cst.ImportFrom)):
        return True
    return index == 0 and isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))


def process_source(
    path: str,
    source: bytes,
    rules: Sequence[type[Rule]],
    options: Options,
    package: Optional[str] = None,
    keep: Optional[Keep] = None,
    passes: int = MAX_PASSES,
    selected: Optional[Sequence[type[Rule]]] = None,
) -> FileResult:
    """Analyse and rewrite one file's bytes; never raises for bad input.

    ``keep`` selects which fixable changes are applied (see :func:`rewrite`). Where the
    rewrite exposes more changes (see :class:`_AnotherPass`), the rules run on it again,
    up to ``passes`` passes in all, and the file's result is the last pass's text with
    every pass's changes, their lines those of ``source``. ``rules`` may be the ones the
    source triggers among ``selected`` (all the run's rules, by default ``rules``): the
    rewrite is checked with those of ``selected`` that it triggers, as a second run
    would be (``hlo_const(x)`` becomes ``mlir.ir_constant(x)``, ir-constant's to check).
    """
    selected = rules if selected is None else selected
    result = FileResult(path=path, original=source)
    ctx: Optional[FileContext] = None
    exposed: Optional[bytes] = None
    # The collector would scan each new tree again and again while the file is analysed;
    # the file's own reference cycles are broken by ``release`` at the end instead.
    collecting = gc.isenabled()
    gc.disable()
    try:
        ctx = analyse(path, source, rules, options, package)
        result.encoding = ctx.module.encoding
        new_module = rewrite(ctx, keep)
        result.changes = [f.change for f in ctx.findings if id(f) not in ctx.moot]
        if ctx.claims:
            result.claims = _settled_claims(ctx)
        if new_module is not None:
            index = ctx.statement_index
            spliced = positions.splice(index, new_module) if index is not None else None
            updated = spliced.data if spliced is not None else positions.module_bytes(new_module)
            if updated != source:
                declined = [f.change.rule for f in ctx.findings if accepted(f, options) and not f.change.applied]
                reparsed = _reparse(ctx.module, new_module, _code_of(new_module, index, spliced))
                changed = _changed_code(new_module, spliced, updated)
                statements = None
                if reparsed is not None and spliced is not None:
                    # The new tree's statements are where the spliced text put them.
                    statements = positions.StatementIndex(reparsed, spliced.starts)
                # The self-check walks a tree of its own: free this analysis first.
                linked = bool(ctx.claims) or keep is not None
                ctx.release()
                del new_module, index, spliced
                try:
                    _self_check(path, updated, selected, options, package, declined, reparsed, statements)
                except _AnotherPass:
                    if linked or passes <= 1:
                        raise
                    exposed = updated
                _check_python(path, source, updated, changed)
                if exposed is None:
                    result.updated = updated
            elif not ctx.claims and (applied := sorted({c.rule for c in result.changes if c.applied})):
                # A fix in the report must be in the file: an edit that matched nothing
                # would otherwise say "fixed" of code left as it was.
                raise RewriteError(f"{', '.join(applied)} reported fixes that left the file as it was")
    except RewriteError as exc:
        result.error = f"internal error, file not rewritten: {exc}"
    except cst.ParserSyntaxError as exc:
        result.error = _syntax_error(path, source, exc)
    except cst.CSTValidationError as exc:  # a SyntaxError, but raised by an edit, not the input
        result.error = f"internal error, file not rewritten: a rule built invalid code ({_one_line(exc)})"
    except (UnicodeDecodeError, LookupError, SyntaxError) as exc:
        result.error = f"cannot decode: {_one_line(exc)}"
    except NestingTooDeep:
        result.error = "cannot parse: nesting too deep"
    except RecursionError:
        result.error = "internal error, file not rewritten: recursion too deep while analysing it"
    except Exception as exc:  # noqa: BLE001 - one file's failure never stops a run
        result.error = f"internal error: {type(exc).__name__}: {_one_line(exc)}"
    finally:
        if ctx is not None:
            ctx.release()
        if collecting:
            gc.enable()
    if exposed is not None and result.error is None:
        # (A pass whose own checks failed goes no further: the next would take its
        # invalid text for the original and accept it.)
        return _next_pass(result, exposed, selected, options, package, passes - 1)
    return result


def _next_pass(result: FileResult, updated: bytes, rules, options: Options, package, passes: int) -> FileResult:
    """``result`` (whose rewrite ``updated`` exposed more changes) with the rules run
    again on ``updated`` (those of the run's ``rules`` it triggers): the changes this pass
    applied, then the next pass's, placed on the lines of the original; the file is
    refused when the next pass fails."""
    after = process_source(result.path, updated, triggered(rules, updated), options, package, passes=passes,
                           selected=rules)
    if after.error is not None or after.claims:
        result.error = after.error or "internal error, file not rewritten: a second pass links it to other files"
        return result
    lines = positions.line_map(updated, result.original or b"")
    moved = [
        dataclasses.replace(c, line=lines(c.line), end_line=lines(c.end_line) if c.end_line else 0)
        for c in after.changes
    ]
    result.changes = sorted([c for c in result.changes if c.applied] + moved, key=lambda c: (c.line, c.column))
    result.updated = after.updated if after.updated is not None else updated
    return result


def _settled_claims(ctx: FileContext) -> dict[LinkKey, Claim]:
    """Each claim of ``ctx`` as it stands after the rewrite: a file makes its side of a
    linked decision only when every change linked to it went into the new text."""
    settled = {}
    for key, claim in ctx.claims.items():
        problem = claim.problem
        linked = [f for f in ctx.findings if f.link == key]
        if problem is None and not linked:
            problem = "it has nothing to change for it"
        # The change that held the others back speaks for them (``rewrite`` keeps a link whole).
        missing = sorted((f for f in linked if not f.change.applied),
                         key=lambda f: (not f.suppressed, f.change.safety is not Safety.UNSAFE))
        if problem is None and missing:
            change = missing[0].change
            if missing[0].suppressed:
                problem = f"its change at line {change.line} is suppressed by a `# ccmigrate: ignore` comment"
            elif change.safety is Safety.UNSAFE:
                problem = f"its change at line {change.line} is unsafe and needs --unsafe-fixes"
            else:
                problem = f"its change at line {change.line} was not applied"
        settled[key] = Claim(claim.partners, problem, made=any(f.change.applied for f in linked))
    return settled


def _code_of(
    new: cst.Module, index: Optional[positions.StatementIndex], spliced: Optional[positions.Spliced]
) -> Callable[[cst.CSTNode], str]:
    """Code of a top-level statement of ``new``: the text the splice generated for it or
    kept from the original, else generated now."""
    if index is None or spliced is None:
        return functools.partial(positions.code_for_node, new)

    def code(stmt: cst.CSTNode) -> str:
        text = spliced.generated.get(id(stmt))
        if text is not None:
            return text
        k = index.position(stmt)
        if k is not None:
            return index.text_of(k).decode(new.encoding)
        return positions.code_for_node(new, stmt)

    return code


def _reparse(original: cst.Module, new: cst.Module, code: Optional[Callable[[cst.CSTNode], str]] = None) -> Optional[cst.Module]:
    """The parser's tree of ``new``'s text, parsing only the top-level statements the
    rewrite replaced or added (most of a rewritten file is kept as it was, and parsing
    is most of what the self-check costs); ``None`` when it cannot be had that way.

    A top-level statement starts at column 0 outside any bracket, so its text parses on
    its own into the nodes the whole file would give, with two exceptions handled here:
    comment lines above the first statement of a piece become the piece's module header
    (they are that statement's leading lines in the whole file), and lines after the
    last statement of a piece are shared with what follows, so each piece is parsed with
    the kept statement after it, whose leading lines must come out as they were. Kept
    statements are the parser's nodes for the same text already. Anything else (indented
    comments between statements, a changed header or footer, a piece that does not
    parse) is left to a parse of the whole text, which also words the syntax error.
    """
    if code is None:
        code = functools.partial(positions.code_for_node, new)
    if (
        new.header is not original.header
        or new.footer is not original.footer
        or (new.encoding, new.default_indent, new.default_newline, new.has_trailing_newline)
        != (original.encoding, original.default_indent, original.default_newline, original.has_trailing_newline)
    ):
        return None
    kept = {id(stmt) for stmt in original.body}
    body = list(new.body)
    if all(id(stmt) in kept for stmt in body):
        return None
    config = cst.PartialParserConfig(default_indent=new.default_indent, default_newline=new.default_newline)
    spliced: list[cst.CSTNode] = []
    i = 0
    while i < len(body):
        if id(body[i]) in kept:
            spliced.append(body[i])
            i += 1
            continue
        end = i
        while end < len(body) and id(body[end]) not in kept:
            end += 1
        sentinel = body[end] if end < len(body) else None
        if sentinel is None and original.footer:
            return None  # trailing comments of the file: whose they are depends on what precedes them
        text = "".join(map(code, body[i:end]))
        if sentinel is not None:
            # Only the kept statement's leading lines can come out differently, and they
            # do not depend on what the statement is: a ``pass`` stands in for it (the
            # kept statement may be a long function, parsed already).
            text += positions.lines_code(new, sentinel.leading_lines) + "pass" + new.default_newline
        try:
            piece = cst.parse_module(text, config)
        except (cst.ParserSyntaxError, RecursionError):
            return None
        parsed = list(piece.body)
        if piece.footer or len(parsed) != end - i + (sentinel is not None):
            return None
        if any(line.whitespace.value for line in piece.header):
            return None  # an indented comment: it could belong to the block above
        if piece.header:
            first = parsed[0]
            parsed[0] = first.with_changes(leading_lines=[*piece.header, *first.leading_lines])
        if sentinel is not None:
            again = parsed.pop()
            if len(again.leading_lines) != len(sentinel.leading_lines) or not all(
                a.deep_equals(b) for a, b in zip(again.leading_lines, sentinel.leading_lines)
            ):
                return None
        spliced.extend(parsed)
        i = end
    return new.with_changes(body=spliced)


def _self_check(
    path: str,
    updated: bytes,
    rules,
    options: Options,
    package,
    declined: Sequence[str] = (),
    reparsed: Optional[cst.Module] = None,
    statements: Optional[positions.StatementIndex] = None,
) -> None:
    # Positions are only needed to honour suppression comments and to place annotations.
    locate = options.annotate or b"ccmigrate" in updated
    # A later run would not give the new text to a rule whose triggers it lacks; a
    # declined site is still there, so its rule must still find it.
    rules = [r for r in rules if r.name in declined or any(t in updated for t in r.triggers)]
    try:
        again = analyse(path, updated, rules, options, package, locate=locate, module=reparsed, statements=statements)
    except cst.ParserSyntaxError as exc:
        raise RewriteError(f"the rewrite does not parse ({_one_line(exc)})") from exc
    try:
        _check_second_pass(again, options, locate, declined)
    finally:
        again.release()


def _check_second_pass(again: FileContext, options: Options, locate: bool, declined: Sequence[str]) -> None:
    if declined:
        # Declined sites are still there by design; nothing else may be pending.
        pending = sorted(f.change.rule for f in again.findings if accepted(f, options))
        if pending != sorted(declined) or rewrite(again, keep=lambda change: False) is not None:
            raise RewriteError("a second pass would change more than the declined sites")
        return
    if any(accepted(f, options) for f in again.findings) or rewrite(again) is not None:
        if not locate:
            locate_findings(again)
        pending = [f for f in again.findings if accepted(f, options)]
        where = ", ".join(f"{f.change.rule} at line {f.change.line}" for f in pending) or "annotations"
        message = f"a second pass would change the rewrite again ({where})"
        if pending and not again.claims and all(f.link is None for f in pending):
            raise _AnotherPass(message)
        raise RewriteError(message)


def _syntax_error(path: str, source: bytes, exc: cst.ParserSyntaxError) -> str:
    """Python's own account of a syntax error: it names the right line and the cause."""
    try:
        compile(source, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as py:
        where = f"line {py.lineno}" + (f", column {py.offset}" if py.offset else "")
        return f"syntax error at {where}: {py.msg}"
    except (ValueError, RecursionError, MemoryError):
        pass
    return f"cannot parse (syntax the parser does not support): {_one_line(exc)}"


#: Above this many generated statements, the whole rewrite is compiled at once: each
#: compile() call has a fixed cost (a 50,000-statement file spent 18 s in them).
MAX_SEPARATE_COMPILES = 200


def _changed_code(new: cst.Module, spliced: Optional[positions.Spliced], updated: bytes) -> Optional[list[str]]:
    """The code of the top-level statements a rewrite generated, each preceded by as many
    blank lines as come before it in ``updated`` (so errors name the file's lines);
    ``None`` when the whole text must be compiled: without a splice, or where a
    ``from __future__`` import must stay first in the file."""
    if spliced is None or b"__future__" in updated:
        return None
    changed = [k for k, stmt in enumerate(new.body) if id(stmt) in spliced.generated]
    if len(changed) > MAX_SEPARATE_COMPILES:
        # Most statements were generated again (LibCST's import passes copy the tree):
        # one compile of the whole text costs less than one per statement.
        return None
    return ["\n" * spliced.starts[k] + spliced.generated[id(new.body[k])] for k in changed]


def _check_python(path: str, source: bytes, updated: bytes, changed: Optional[list[str]] = None) -> None:
    """Python's own compiler must accept the rewrite wherever it accepted the original
    (LibCST accepts some text Python rejects, such as a keyword argument given twice).

    With ``changed`` (see :func:`_changed_code`), only those statements are compiled:
    what the compiler rejects in a top-level statement it rejects in that statement
    alone (a misplaced ``from __future__`` import aside), and the kept statements are
    the original's.
    """
    try:
        if changed is None:
            compile(updated, path, "exec", dont_inherit=True)
        else:
            for code in changed:
                compile(code, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        try:
            compile(source, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return  # newer syntax than this interpreter knows: LibCST's check stands
        raise RewriteError(f"the rewrite is not valid Python ({_one_line(exc)})") from exc


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    if isinstance(exc, cst.ParserSyntaxError):
        text = f"{exc.message} (line {exc.raw_line}, column {exc.raw_column + 1})"
    return " ".join(text.split()) or type(exc).__name__


def read_error(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "file disappeared before it could be read"
    if exc.errno is None:  # raised by read_source itself, already worded for the user
        return str(exc)
    return f"cannot read: {exc.strerror or exc}"


def process_candidate(path: str, source: bytes, rules: Sequence[type[Rule]], options: Options) -> Optional[FileResult]:
    chosen = triggered(rules, source)
    if not chosen:
        return None
    problem = text_problem(source)
    if problem:
        return FileResult(path=path, original=source, error=problem)
    return process_source(path, source, chosen, options, package_of(path, source), selected=rules)


# -- many files -------------------------------------------------------------------


_worker_state: dict = {}


def _worker_init(rule_names: tuple[str, ...], options: Options) -> None:
    from codemods.rules import all_rules

    _worker_state["rules"] = tuple(r for r in all_rules() if r.name in rule_names)
    _worker_state["options"] = options


def _worker_run(path: str, source: bytes, project: Optional[Project] = None) -> Optional[FileResult]:
    options = _worker_state["options"]
    if project is not None:
        options = dataclasses.replace(options, project=project)
    result = process_candidate(path, source, _worker_state["rules"], options)
    if result is not None:
        result.original = None  # the parent has it: do not send it back
    return result


def _pool(jobs: int, rules: Sequence[type[Rule]], options: Options) -> concurrent.futures.ProcessPoolExecutor:
    cst.parse_module("")  # forked workers inherit a warmed parser
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    if context.get_start_method() == "fork":
        # A collection in a worker would write to every object it inherited (the
        # collector's own bookkeeping lives in each object), copying every page of the
        # parent's heap into the worker: frozen objects are never examined. ``run``
        # unfreezes them when the pool is done.
        gc.freeze()
    return concurrent.futures.ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=context,
        initializer=_worker_init,
        initargs=(tuple(r.name for r in rules), options),
    )


def run(
    paths: Iterable[str],
    rules: Sequence[type[Rule]],
    options: Options,
    *,
    excludes: Iterable[str] = (),
    jobs: int = 1,
    clean_temps: bool = False,
    progress: Optional[Callable[[int, int], None]] = None,
    include: Optional[Callable[[str], bool]] = None,
) -> tuple[list[FileResult], int]:
    """Process every file under ``paths`` (those ``include`` accepts, when given).

    Returns the results of the files that could hold a site or failed (in discovery
    order) and the number of files looked at.
    """
    found: list[Found] = list(discover(paths, excludes, clean_temps=clean_temps))
    if include is not None:
        found = [f for f in found if include(f.path)]
    errors = {f.path: FileResult(path=f.path, error=f.error) for f in found if f.error}
    files = [f.path for f in found if not f.error]
    results: dict[str, FileResult] = dict(errors)
    triggers = needles({t for r in rules for t in r.triggers})
    indexers = [r for r in rules if r.index is not None]
    facts: dict[str, dict[str, object]] = {}
    concerned: set[str] = set()  # absolute paths whose migration needs the whole index
    candidates: list[tuple[str, bytes]] = []
    waiting: list[tuple[str, bytes]] = []
    # With several jobs, workers start on the candidates while the rest of the tree is
    # still being read (reading every file is the floor of a run, and most of it at
    # scale): the pool starts once there is a candidate for each worker, or at the end
    # with one worker per candidate; a single candidate runs here. A file a rule indexed
    # waits until every file is read, with the files it concerns.
    pool: Optional[concurrent.futures.ProcessPoolExecutor] = None
    futures: dict = {}
    try:
        for path in files:
            try:
                source = read_source(path)
            except OSError as exc:
                results[path] = FileResult(path=path, error=read_error(exc))
                continue
            problem = text_problem(source)
            if problem:
                results[path] = FileResult(path=path, original=source, error=problem)
                continue
            if not any(t in source for t in triggers):
                continue
            candidates.append((path, source))
            if indexers and (_index_file(path, source, indexers, facts, concerned) or os.path.abspath(path) in concerned):
                continue
            waiting.append((path, source))
            if pool is None and jobs > 1 and len(waiting) == jobs:
                pool = _pool(jobs, rules, options)
            if pool is not None:
                # The parent already read the file: send the bytes rather than reading twice.
                futures.update((pool.submit(_worker_run, p, b), p) for p, b in waiting)
                waiting = []
        project = Project(facts=facts, files=frozenset(os.path.abspath(p) for p, _ in candidates)) if facts else None
        needs_index = {p for p, _ in candidates if os.path.abspath(p) in concerned}
        for future, path in list(futures.items()):
            if path in needs_index:
                # Started before a later file named it: migrated again with the index.
                future.cancel()
                del futures[future]
        submitted = set(futures.values())
        rest = [(p, b) for p, b in candidates if p not in submitted]
        total = len(candidates)
        if pool is None and jobs > 1 and len(rest) > 1:
            pool = _pool(min(jobs, len(rest)), rules, options)
        if pool is not None:
            # Largest files first so one big file does not finish last on its own.
            for p, b in sorted(rest, key=lambda c: -len(c[1])):
                futures[pool.submit(_worker_run, p, b, project if p in needs_index else None)] = p
        if progress:
            progress(0, total)
        if pool is not None:
            sources = dict(candidates)
            for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
                path = futures[future]
                try:
                    res = future.result()
                    if res is not None:
                        res.original = sources[path]
                except Exception as exc:  # a worker died: report the file, go on
                    res = FileResult(path=path, error=f"worker failed: {type(exc).__name__}: {exc}")
                if res is not None:
                    results[path] = res
                if progress:
                    progress(done, total)
        else:
            for done, (path, source) in enumerate(rest, 1):
                chosen = dataclasses.replace(options, project=project) if path in needs_index else options
                res = process_candidate(path, source, rules, chosen)
                if res is not None:
                    results[path] = res
                if progress:
                    progress(done, total)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
            gc.unfreeze()
    if project is not None:
        _settle_links(results, dict(candidates), rules, options, project)
    order_index = {f.path: i for i, f in enumerate(found)}
    ordered = sorted(results.values(), key=lambda r: order_index.get(r.path, len(order_index)))
    return ordered, len(files)


def _index_file(path: str, source: bytes, indexers: Sequence[type[Rule]], facts: dict, concerned: set) -> bool:
    """Run the rules' index hooks on one file; whether any had something to say."""
    held = False
    for rule in indexers:
        try:
            entry: Optional[IndexEntry] = rule.index(path, source)
        except Exception:  # noqa: BLE001 - the file's own migration reports what is wrong with it
            entry = None
        if entry is None:
            continue
        where = os.path.abspath(path)
        facts.setdefault(rule.name, {})[where] = entry.facts
        concerned.add(where)
        concerned.update(entry.concerns)
        held = True
    return held


def _settle_links(
    results: dict[str, FileResult], sources: dict[str, bytes], rules: Sequence[type[Rule]], options: Options, project: Project
) -> None:
    """Keep a linked decision only where every file taking part made its side of it;
    migrate again, with the decision vetoed, each file taking part in one that
    fails (a partner not in the run, failing, or unable to make all its change). A file that
    fails on the way takes its other decisions down with it, so this repeats until
    nothing more is vetoed."""
    by_abs = {os.path.abspath(p): p for p in sources}
    vetoed: dict[LinkKey, tuple[str, str]] = dict(project.vetoed)
    for _round in range(len(results) + 1):
        claims: dict[LinkKey, dict[str, Claim]] = {}
        for path, result in results.items():
            for key, claim in result.claims.items():
                claims.setdefault(key, {})[os.path.abspath(path)] = claim
        fresh: dict[LinkKey, tuple[str, str]] = {}
        for key, sides in claims.items():
            if key in vetoed:
                continue
            why = next(((where, c.problem) for where, c in sorted(sides.items()) if c.problem), None)
            for where in sorted(set().union(*(c.partners for c in sides.values())) | set(sides)):
                if why is not None:
                    break
                result = results.get(by_abs.get(where, ""))
                if result is not None and result.error:
                    why = (where, f"it is not migrated: {result.error}")
                elif where not in sides:
                    why = (where, "it is not among the files this run migrates" if where not in by_abs
                           else "it does not take part")
            if why is not None:
                fresh[key] = why
        if not fresh:
            return
        vetoed.update(fresh)
        again = dataclasses.replace(options, project=dataclasses.replace(project, vetoed=dict(vetoed)))
        # Every side that changed anything for the decision: one that could not make all
        # of it (a change suppressed, say) may have made the rest.
        redo = {where for key in fresh for where, c in claims[key].items() if c.made}
        for where in sorted(redo):
            path = by_abs[where]
            res = process_candidate(path, sources[path], rules, again)
            if res is not None:
                results[path] = res
