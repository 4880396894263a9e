"""``token-type``: ``mlir.token_type()`` is one MLIR type now, no longer a one-element list.

Legacy form
    ``jax.interpreters.mlir.token_type()`` (also reached as
    ``jax._src.interpreters.mlir.token_type``, or re-exported by a project module that
    imports it from either) returned ``[hlo.TokenType.get()]`` up to jax 0.4.30, and
    lowering rules that thread an ordered-effect token through a custom call were written
    for that list: ``out_types = [tensor_type, *token_type()]``, ``token_type()[0]``,
    ``custom_call(..., out_types=token_type())``. jax **0.4.31** returns the
    ``stablehlo.TokenType`` itself (no changelog entry; the singleton wrapping of
    MLIR types was dropped from lowering). The old spellings then fail while lowering:
    ``*token_type()`` raises ``TypeError: ... object is not iterable``, ``token_type()[0]``
    is not subscriptable, and a bare ``token_type()`` given as the result types is no
    sequence of types.

Replacement (jax >= 0.4.31)
    * ``*token_type()`` in a list, tuple or set display, or in the arguments of a call
      landing in the ``*rest`` of a function of the module -> ``token_type()``; in the
      arguments of any other call -> ``*[token_type()]`` (the same arguments; a bare
      ``token_type()`` argument would read as a manual site on the next run);
    * ``token_type()[0]`` -> ``token_type()``;
    * ``(token,) = token_type()`` (also ``[token] = ...``, ``token, = ...``) -> ``token =
      token_type()``: unpacking one type fails. Where the name is then read in a way a
      later run could not tell from the old list (returned, handed to another call), the
      unpacking stays and unpacks ``[token_type()]`` instead, so a second run finds nothing;
    * a call whose value is used as a list of result types -> ``[token_type()]``, the value
      the old function returned: passed as ``result_types=`` / ``out_types=``, iterated
      (``for t in ...``, a comprehension), read by ``len``/``list``/``tuple``, concatenated
      with a list, or assigned to a name bound once in its function whose every read is
      such a use, an unpacking, an index, or an argument to another call (which received
      the list before, and receives it again). A module-level name is an unsafe fix: other
      modules may import it;
    * a use that only makes sense for one type (an element of a list or tuple display,
      ``op.type == token_type()``) is code already written for jax >= 0.4.31: left alone;
    * any other use (returned, stored in an attribute, handed to another call directly,
      used both ways) is reported as manual: whether it expects the list or the type only
      the code around it says.

    Nothing happens for a ``--target-jax`` below 0.4.31, nor inside a compatibility guard
    (reported: that branch serves the releases it tests for).

What the kernel receives afterwards
    Unchanged: the custom call has the operands and result types the legacy code emitted
    on jax 0.4.30, one ``!stablehlo.token`` among them, with the same layouts.

Before::

    out_types = [ir.RankedTensorType.get(shape, dtype), *token_type()]
    barrier_types = token_type()
    return hlo_custom_call(b"mpi_barrier", out_types=barrier_types, ...)

After::

    out_types = [ir.RankedTensorType.get(shape, dtype), token_type()]
    barrier_types = [token_type()]
    return hlo_custom_call(b"mpi_barrier", out_types=barrier_types, ...)
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.metadata import GlobalScope

from codemods.rule import Rule, Safety
from codemods.rules._crossmodule import reexported
from codemods.rules._shared import compatibility_guard, short

FUNCTIONS = frozenset({"jax.interpreters.mlir.token_type", "jax._src.interpreters.mlir.token_type"})
CHANGED_IN = (0, 4, 31)
#: Keywords of the custom-call builders that take the result types.
RESULT_KEYWORDS = frozenset({"result_types", "out_types"})
#: Built-ins whose argument is read as a sequence.
SEQUENCE_READERS = frozenset({"len", "list", "tuple", "zip", "enumerate"})
CHANGED = "mlir.token_type() returns one ir.Type since jax 0.4.31 (a one-element list up to 0.4.30)"
KERNEL = "unchanged (the same result types, one !stablehlo.token among them)"

EQUALITY = (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot)
# How the value is used: as the old list, as one type (code written for jax >= 0.4.31),
# handed on to another call (either), or otherwise.
LIST, SINGLE, PASSED, OTHER = "list", "single", "passed", "other"


class TokenType(Rule):
    __doc__ = __doc__
    name = "token-type"
    summary = "Rewrite uses of mlir.token_type() as a one-element list (it returns one type since jax 0.4.31)."
    triggers = (b"token_type",)
    statement_scoped = True

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._aliases: Optional[frozenset[str]] = None

    # -- finding sites ---------------------------------------------------------------
    def local_aliases(self) -> frozenset[str]:
        """Local names an import binds to something called ``token_type`` (``as tok``)."""
        if self._aliases is None:
            self._aliases = frozenset(
                b.local for b in self.ctx.names.imports if b.qualified.rpartition(".")[2] == "token_type")
        return self._aliases

    def is_token_type(self, func: cst.BaseExpression) -> bool:
        if isinstance(func, cst.Attribute):
            if func.attr.value != "token_type":
                return False
        elif isinstance(func, cst.Name):
            if func.value != "token_type" and func.value not in self.local_aliases():
                return False
        else:
            return False
        qual = self.ctx.qualified_name(func)
        # ``if <jax release>: from jax._src.interpreters.mlir import token_type / else: from
        # jax.interpreters.mlir import token_type`` binds the name twice, each time to it.
        quals = [qual] if qual is not None else self.ctx.qualified_names(func)
        return bool(quals) and all(self._resolves(q) for q in quals)

    def _resolves(self, qual: str) -> bool:
        if qual in FUNCTIONS:
            return True
        if qual.rpartition(".")[2] != "token_type" or qual.startswith(("jax.", "jaxlib.")):
            return False
        return reexported(self.ctx.path, self.ctx.package, qual, FUNCTIONS) is not None

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.options.target_jax < CHANGED_IN or node.args or not self.is_token_type(node.func):
            return
        up = self.ctx.parents.get(node)
        kind = self.use_of(node, up)
        if kind == SINGLE:
            return
        if kind == PASSED:
            kind = OTHER  # handed on directly: nothing says which of the two it expects
        safety = Safety.SAFE
        unpacked = _unpacked_once(up) if kind == LIST and isinstance(up, cst.Assign) else None
        if unpacked is not None:
            if compatibility_guard(self.ctx, node) is None:
                unpacking = self.ctx.module.code_for_node(up.targets[0].target).strip()
                if self.reads_kind(up.targets[0].target.elements[0].value, node)[0] is None:
                    self.report(up.targets[0], Safety.SAFE, f"{CHANGED}: `{unpacking} = token_type()` unpacked the one "
                                f"type, so the name takes the call itself",
                                lambda updated, name=unpacked: updated.with_changes(target=name), kernel_receives=KERNEL)
                else:
                    # ``tok = token_type()`` then ``return tok`` would read as a manual site on
                    # the next run; unpacking a one-element list binds the same and does not.
                    self.report(node, Safety.SAFE, f"{CHANGED}: `{unpacking} = token_type()` unpacked the one type, "
                                f"so it unpacks `[token_type()]`", _listed, kernel_receives=KERNEL)
                return
            why = "the value is unpacked"
        elif kind == LIST and isinstance(up, (cst.Assign, cst.NamedExpr)):
            kind, why, module_level = self.assigned(node, up)
            if module_level:
                safety = Safety.UNSAFE
                why += " here (other modules may import the name and read it as one type)"
        else:
            why = self.describe(node, up)
        if kind is None:
            return
        guard = compatibility_guard(self.ctx, node)
        if guard is not None:
            self.report(node, Safety.MANUAL, f"{CHANGED}; this call is inside the compatibility guard {guard} and left "
                        f"as is: on jax >= 0.4.31 use `[token_type()]` where the list is meant")
            return
        if kind == OTHER:
            self.report(node, Safety.MANUAL, f"{CHANGED}: {why}; check that it expects one type, or write "
                        f"`[token_type()]` where it expects the list")
            return
        if isinstance(up, cst.Arg) and up.star == "*" and not self.into_varargs(up):
            # ``f(x, *token_type())`` for a callee not read here: ``*[token_type()]`` passes the
            # same, and unlike a bare argument reads as the list it was on a second run.
            self.report(node, Safety.SAFE, f"{CHANGED}: unpacked, so it becomes `[token_type()]`", _listed,
                        kernel_receives=KERNEL)
        elif isinstance(up, cst.StarredElement) or (isinstance(up, cst.Arg) and up.star == "*"):
            self.report(up, Safety.SAFE, f"{CHANGED}: unpacking it becomes the call itself", _unstar,
                        kernel_receives=KERNEL)
        elif isinstance(up, cst.Subscript) and up.value is node:
            self.report(up, Safety.SAFE, f"{CHANGED}: its first element becomes the call itself",
                        lambda updated: updated.value, kernel_receives=KERNEL)
        else:
            self.report(node, safety, f"{CHANGED}: {why}, so it becomes `[token_type()]`", _listed,
                        kernel_receives=KERNEL)

    def into_varargs(self, arg: cst.Arg) -> bool:
        """``arg`` lands in the ``*rest`` of a function of this module (positionally, past
        its named parameters), where one value and an unpacked one-element list are alike."""
        call = self.ctx.parents.get(arg)
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name) or arg.keyword is not None:
            return False
        index = next(i for i, a in enumerate(call.args) if a is arg)
        if any(a.star or a.keyword is not None for a in call.args[:index]):
            return False
        defs = [stmt for stmt in self.ctx.module.body if isinstance(stmt, cst.FunctionDef) and stmt.name.value == call.func.value]
        if len(defs) != 1 or defs[0].decorators:
            return False
        params = defs[0].params
        return isinstance(params.star_arg, cst.Param) and index >= len(params.posonly_params) + len(params.params)

    # -- how the value is used -------------------------------------------------------
    def use_of(self, value: cst.BaseExpression, up: Optional[cst.CSTNode]) -> str:
        """Whether ``value`` (the call, or a read of the name it was assigned to) is used
        as the list, handed to another call, or otherwise."""
        if isinstance(up, cst.StarredElement):
            return LIST
        if isinstance(up, cst.Element):
            return SINGLE  # ``[tensor_type, token_type()]``: a list holding the old list is no list of types
        if isinstance(up, cst.Arg):
            if up.star == "*" or (up.keyword is not None and up.keyword.value in RESULT_KEYWORDS):
                return LIST
            if up.star:
                return OTHER
            if _sequence_reader(self.ctx.parents.get(up)):
                return LIST
            if self.into_varargs(up):
                return SINGLE  # ``spread(t, tok)`` into ``def spread(first, *rest)``: as ``*[tok]``
            return PASSED
        if isinstance(up, cst.Subscript) and up.value is value:
            return LIST if _first_element(up) else OTHER
        if isinstance(up, cst.ComparisonTarget) and isinstance(up.operator, EQUALITY):
            up = self.ctx.parents.get(up)  # ``value`` is the right-hand side
        if isinstance(up, cst.Comparison) and len(up.comparisons) == 1 and isinstance(up.comparisons[0].operator, EQUALITY):
            # ``op.type == token_type()``: a type never equals the old list; written for one type.
            other = up.comparisons[0].comparator if up.left is value else up.left
            return OTHER if isinstance(other, (cst.List, cst.Tuple)) else SINGLE
        if isinstance(up, (cst.For, cst.CompFor)) and up.iter is value:
            return LIST
        if isinstance(up, cst.BinaryOperation) and isinstance(up.operator, cst.Add):
            other = up.right if up.left is value else up.left
            return LIST if isinstance(other, (cst.List, cst.ListComp)) else OTHER
        if isinstance(up, cst.Assign) and up.value is value and isinstance(value, cst.Call):
            return LIST  # decided by the reads of the name (``assigned``)
        if isinstance(up, cst.NamedExpr) and up.value is value and isinstance(value, cst.Call) \
                and isinstance(self.ctx.parents.get(up), cst.Expr):
            return LIST  # ``(token := token_type())`` as a statement: an assignment
        return OTHER

    def assigned(self, node: cst.Call, stmt: cst.Assign | cst.NamedExpr) -> tuple[Optional[str], str, bool]:
        """``x = token_type()`` (or ``(x := token_type())`` as a statement): a list use when
        ``x`` is bound once and every read of it is one (handing it on to another call is
        neutral); None when it is never read."""
        if isinstance(stmt, cst.Assign) and len(stmt.targets) != 1:
            return OTHER, "the value is assigned to several targets", False
        target = stmt.target if isinstance(stmt, cst.NamedExpr) else stmt.targets[0].target
        if not isinstance(target, cst.Name):
            stored = short(self.ctx.module.code_for_node(target), 40)
            return OTHER, f"the value is stored in `{stored}`, whose reads this rule does not follow", False
        kind, why = self.reads_kind(target, node)
        return kind, why, kind == LIST and isinstance(self.ctx.scope_of(target), GlobalScope)

    def reads_kind(self, target: cst.Name, node: cst.Call) -> tuple[Optional[str], str]:
        """How the name ``target`` (bound to ``node``'s value) is read: as the list, as one
        type (None, as when never read) or otherwise, with the reason in a report's words."""
        scope = self.ctx.scope_of(target)
        module_level = isinstance(scope, GlobalScope)
        if module_level:
            # Other functions read a module-level name too; the cut-down analysis leaves them out.
            scope = self.ctx.scopes.get(target)
        bindings = list(scope.assignments[target.value]) if scope is not None else []
        if not any(getattr(b, "node", None) is target for b in bindings) \
                or len(bindings) != 1 and not all(self._binds_the_call(b, node) for b in bindings):
            # (Bound only by ``x = token_type()`` each time, every read sees what each gives.)
            return OTHER, f"`{target.value}` is bound more than once"
        reads = list({id(access.node): access.node for b in bindings for access in b.references}.values())
        kinds = []
        for read in reads:
            if not isinstance(read, cst.Name):
                return OTHER, f"`{target.value}` is read in a way this rule does not follow"
            up = self.ctx.parents.get(read)
            kind = self.use_of(read, up)
            if kind == OTHER:
                return OTHER, f"`{target.value}` is {self.describe(read, up, plain=True)}"
            kinds.append(kind)
        if not kinds or (SINGLE in kinds and LIST not in kinds):
            return None, ""  # never read, or read as one type
        if SINGLE in kinds:
            return OTHER, f"`{target.value}` is used both as a list and as one type"
        if LIST not in kinds:
            return OTHER, f"`{target.value}` is only handed on to other calls"
        return LIST, f"`{target.value}` is read as the list it was"

    def _binds_the_call(self, binding, call: cst.Call) -> bool:
        """``binding`` is ``name = f()`` (a statement of one target) or ``name, = f()``, ``f``
        the function ``call`` calls (``tok = token_type()`` written twice in a rule)."""
        name = getattr(binding, "node", None)
        target = self.ctx.parents.get(name) if isinstance(name, cst.Name) else None
        if isinstance(target, cst.Element):  # ``name, = f()``: read after the rewrite gives ``name = f()``
            sequence = self.ctx.parents.get(target)
            target = self.ctx.parents.get(sequence) if isinstance(sequence, (cst.Tuple, cst.List)) \
                and len(sequence.elements) == 1 else None
        assign = self.ctx.parents.get(target) if isinstance(target, cst.AssignTarget) else None
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.value, cst.Call)
                and not assign.value.args):
            return False
        called = self.ctx.qualified_name(assign.value.func)
        return called is not None and called == self.ctx.qualified_name(call.func)

    def describe(self, node: cst.CSTNode, up: Optional[cst.CSTNode], plain: bool = False) -> str:
        """What a use is, in the words of a report."""
        if isinstance(up, cst.StarredElement) or (isinstance(up, cst.Arg) and up.star == "*"):
            what = "unpacked"
        elif isinstance(up, cst.Arg) and up.keyword is not None and up.keyword.value in RESULT_KEYWORDS:
            what = f"passed as {up.keyword.value}="
        elif isinstance(up, cst.Arg) and _sequence_reader(self.ctx.parents.get(up)):
            what = f"read as a sequence by {self.ctx.parents.get(up).func.value}()"
        elif isinstance(up, cst.Arg):
            what = "passed to another call"
        elif isinstance(up, cst.Subscript):
            what = "indexed"
        elif isinstance(up, (cst.For, cst.CompFor)):
            what = "iterated"
        elif isinstance(up, cst.BinaryOperation):
            what = "an operand of " + self.ctx.module.code_for_node(up.operator).strip()
        elif isinstance(up, (cst.Comparison, cst.ComparisonTarget)):
            what = "compared with another value"
        elif isinstance(up, cst.Return):
            what = "returned"
        elif isinstance(up, (cst.Element, cst.List, cst.Tuple)):
            what = "an element of a list or tuple"
        else:
            what = "used in `" + short(self.ctx.module.code_for_node(up), 40) + "`" if up is not None else "used"
        return what if plain else f"the value is {what}"


def _sequence_reader(call: Optional[cst.CSTNode]) -> bool:
    return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in SEQUENCE_READERS


def _first_element(subscript: cst.Subscript) -> bool:
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return False
    index = subscript.slice[0].slice.value
    if isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus):
        return isinstance(index.expression, cst.Integer) and index.expression.value == "1"
    return isinstance(index, cst.Integer) and index.value == "0"


def _unstar(updated: cst.CSTNode) -> cst.CSTNode:
    if isinstance(updated, cst.StarredElement):
        return cst.Element(updated.value, comma=updated.comma)
    assert isinstance(updated, cst.Arg)
    return updated.with_changes(star="", whitespace_after_star=cst.SimpleWhitespace(""))


def _listed(updated: cst.CSTNode) -> cst.CSTNode:
    return cst.List([cst.Element(updated)])


def _unpacked_once(stmt: cst.Assign) -> Optional[cst.Name]:
    """``(token,) = ...`` / ``[token] = ...`` / ``token, = ...``: the one name unpacked."""
    if len(stmt.targets) != 1 or not isinstance(stmt.targets[0].target, (cst.Tuple, cst.List)):
        return None
    elements = stmt.targets[0].target.elements
    if len(elements) != 1 or isinstance(elements[0], cst.StarredElement) or not isinstance(elements[0].value, cst.Name):
        return None
    return elements[0].value.with_changes(lpar=(), rpar=())
