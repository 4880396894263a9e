"""What a rule is, what it reports, and what it may ask of the file it runs on.

A rule is a read-only LibCST visitor. All selected rules walk one parsed tree in a
single batched traversal; none of them edits the tree. A rule *reports* a change at a
node, optionally with an edit (a function from the node as it is after inner edits to
its replacement). The engine applies every accepted edit in one transform afterwards,
innermost first, so two rules may rewrite nested nodes (an API rule rewriting a call
whose ``backend_config`` argument another rule serialised) without knowing of each
other.

Safety follows ruff's model:

* ``safe``   - the rewrite is equivalent on the target jax; applied by default.
* ``unsafe`` - it needs the user's judgement; applied only with ``--unsafe-fixes``.
* ``manual`` - no faithful rewrite exists; a report entry with guidance, no edit
  (``--annotate`` writes it as a ``# TODO(ccmigrate): ...`` comment on the site).
"""

from __future__ import annotations

import dataclasses
import enum
from typing import TYPE_CHECKING, Callable, ClassVar, Hashable, Optional, Union

import libcst as cst

if TYPE_CHECKING:  # pragma: no cover
    from codemods.context import FileContext


class Safety(str, enum.Enum):
    SAFE = "safe"
    UNSAFE = "unsafe"
    MANUAL = "manual"

    def __str__(self) -> str:
        return self.value


Edit = Callable[[cst.CSTNode], Union[cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel]]


@dataclasses.dataclass
class Change:
    """One finding at one site, with or without an edit."""

    rule: str
    safety: Safety
    message: str
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0
    before: str = ""
    after: Optional[str] = None
    #: Whether the edit was written into the new text (false for manual changes,
    #: unsafe ones without ``--unsafe-fixes``, and suppressed ones).
    applied: bool = False
    #: What the custom call's kernel receives after the change, when it changes.
    kernel_receives: Optional[str] = None

    def to_json(self) -> dict:
        data = dataclasses.asdict(self)
        data["safety"] = self.safety.value
        return data


@dataclasses.dataclass(frozen=True)
class IndexEntry:
    """What a rule's :meth:`Rule.index` learnt about one file before any file is migrated."""

    #: The rule's own facts (picklable: they travel to the worker processes).
    facts: object
    #: Absolute paths of other files whose migration depends on these facts: they are
    #: migrated once the whole project is indexed, as is this file.
    concerns: tuple[str, ...] = ()


#: Names one decision shared by several files (``ctx.link``): hashable, picklable.
LinkKey = Hashable


_VISITOR_NAMES: dict[type, tuple[str, ...]] = {}


class Rule(cst.BatchableCSTVisitor):
    """Base class of every rule in :mod:`codemods.rules`.

    Subclasses set :attr:`name`, :attr:`summary` and :attr:`triggers`, and implement
    ``visit_*``/``leave_*`` methods that call :meth:`FileContext.report`. The class
    docstring is the rule's documentation: what it rewrites, why, before/after.
    """

    #: Rule code used by ``--select``/``--ignore``, reports and suppressions.
    name: ClassVar[str] = ""
    #: One line for ``ccmigrate rules``.
    summary: ClassVar[str] = ""
    #: Byte strings of which at least one must occur in a file for the rule to run
    #: on it. This is the cheap text test that keeps most files from being parsed,
    #: so it must be a superset test: never miss a file the rule would change.
    triggers: ClassVar[tuple[bytes, ...]] = ()
    #: Whether the rule needs to see only the top-level statements that can concern it:
    #: those whose text holds one of its triggers, and those naming, as a word,
    #: something such a statement binds at module level (an import alias, a helper
    #: function, a class, an assigned value), transitively. The engine's walk leaves the
    #: others out for the rule (most of a large module, usually). A rule that collects
    #: what every statement defines, whatever its text, keeps ``False``. The tree is
    #: whole either way: lookups through the context (bindings, scopes, parents) see it all.
    statement_scoped: ClassVar[bool] = False
    #: Optional ``classmethod index(path, source) -> Optional[IndexEntry]``, called on every
    #: triggered file before any is migrated (cheap: a byte test, then Python's ``ast`` at
    #: most); rules read the merged entries as ``ctx.options.project``. Files change
    #: one at a time without it.
    index: ClassVar[Optional[Callable[[str, bytes], Optional[IndexEntry]]]] = None

    def __init__(self, ctx: "FileContext") -> None:
        super().__init__()
        self.ctx = ctx

    def get_visitors(self):
        # LibCST scans every member of the instance for visit_/leave_ methods on each
        # call (~1,600 members); a rule class's methods never change, so scan it once.
        names = _VISITOR_NAMES.get(type(self))
        if names is None:
            names = _VISITOR_NAMES[type(self)] = tuple(super().get_visitors())
        return {name: getattr(self, name) for name in names}

    def report(
        self,
        node: cst.CSTNode,
        safety: Safety,
        message: str,
        edit: Optional[Edit] = None,
        *,
        kernel_receives: Optional[str] = None,
        link: Optional[LinkKey] = None,
    ) -> Change:
        return self.ctx.report(
            self.name, node, safety, message, edit, kernel_receives=kernel_receives, link=link
        )
