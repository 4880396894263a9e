"""``host-callback``: ``jax.experimental.host_callback`` is gone; its calls become the callbacks it ran on.

Legacy form
    ``hcb.call(f, arg, result_shape=...)``, ``hcb.id_tap(tap, arg, result=...)`` and
    ``hcb.barrier_wait()``, through ``import jax.experimental.host_callback as hcb``,
    ``from jax.experimental import host_callback`` or ``from
    jax.experimental.host_callback import call, id_tap``. Extensions use it to call SciPy
    or another library on the host (sparse LU, Hungarian matching, a Python
    log-probability), and progress bars tap a loop counter.

Removed
    Deprecated in jax 0.4.26. Up to 0.4.34 every function still worked, implemented on
    jax's newer callbacks (the flag ``jax_host_callback_legacy`` was off by default);
    0.4.35 replaced them with stubs raising ``NotImplementedError: jax.experimental.
    host_callback has been deprecated since March 2024 and is now no longer supported``;
    0.8.0 deleted the module (``ModuleNotFoundError``).

Replacement (what jax 0.4.34 ran; the rule acts for a ``--target-jax`` of 0.4.35 on)
    * ``call(f, arg, result_shape=S)`` ->
      ``jax.experimental.io_callback(f, S, arg, sharding=jax.sharding.SingleDeviceSharding(
      jax.local_devices()[0]), ordered=True)``: ``f`` still receives the one pytree
      ``arg`` as NumPy arrays and returns results shaped like ``S`` (a missing
      ``result_shape`` is ``None``: no results). ``device_index=k`` picks
      ``jax.local_devices()[k]``; ``callback_flavor=CallbackFlavor.PURE`` is
      ``jax.pure_callback`` with the same sharding (and no ``ordered``).
    * ``id_tap(tap, arg)`` -> the same ``io_callback`` (or ``pure_callback`` /
      ``jax.debug.callback(..., arg)`` for the ``PURE`` / ``DEBUG`` flavors) of
      ``lambda tapped: tap(tapped, ())`` with no results: the tap function is still called
      with the value and an empty ``transforms`` tuple, as 0.4.34 called it. Where the
      value of ``id_tap`` is used, it was ``result`` (or ``arg``), returned beside the
      callback: ``(io_callback(...), result)[1]``, taken only when that expression is a
      name, an attribute or a constant (evaluating it after the callback changes nothing).
    * ``barrier_wait(...)`` -> ``jax.effects_barrier()``.

    Each is ``safe``: the same callback, ordering and device as on the last release that
    ran the legacy code. Once no use is left the import goes.

Left as they are (manual, with the reason)
    ``call_with_device=True`` / ``tap_with_device=True`` and ``id_tap``'s extra keyword
    arguments (both raised on jax 0.4.34 already), ``call(..., callback_flavor=DEBUG)``,
    ``id_print`` (its printing format: use ``jax.debug.print``), a flavor or argument
    that is not spelled out (``*args``), a used ``id_tap`` value that is not a plain
    expression, references that are not calls (``tap = hcb.id_tap``), and code inside
    a compatibility guard (it serves older jax releases).

What the kernel receives afterwards
    The host function gets the same arguments and its results go back with the same
    shapes and dtypes; the lowered module holds a host-callback custom call in both
    cases (its target and descriptor are jax's own, not the project's).

Before::

    import jax.experimental.host_callback as hcb

    def lu_factor(data):
        return hcb.call(host_lu_factor, data, result_shape=jax.ShapeDtypeStruct((), np.float64))

After::

    import jax

    def lu_factor(data):
        return jax.experimental.io_callback(host_lu_factor, jax.ShapeDtypeStruct((), np.float64), data,
            sharding=jax.sharding.SingleDeviceSharding(jax.local_devices()[0]), ordered=True)
"""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods.rule import Rule, Safety
from codemods import walk
from codemods.rules._shared import compatibility_guard, drop_binding_if_unused, import_without, short

MODULE = "jax.experimental.host_callback"
#: The stubs that raise arrived in 0.4.35: below it the legacy calls still run.
BROKEN_IN = (0, 4, 35)
GONE = "jax.experimental.host_callback stopped working in jax 0.4.35 (deprecated in 0.4.26, deleted in 0.8.0)"
#: Each function's parameters, in order, as jax 0.4.34 declared them.
PARAMS = {
    "call": ("callback_func", "arg", "result_shape", "call_with_device", "device_index", "callback_flavor"),
    "id_tap": ("tap_func", "arg", "result", "tap_with_device", "device_index", "callback_flavor"),
    "barrier_wait": ("logging_name",),
}
POSITIONAL = {"call": 2, "id_tap": 2, "barrier_wait": 1}
FLAVORS = ("IO_CALLBACK", "PURE", "DEBUG")
KERNEL = "the same host function, arguments and result shapes (a host-callback custom call of jax's own)"


class HostCallback(Rule):
    __doc__ = __doc__
    name = "host-callback"
    summary = "Rewrite jax.experimental.host_callback call/id_tap/barrier_wait as the callbacks jax 0.4.34 ran them with."
    triggers = (b"host_callback",)
    statement_scoped = True

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.active = ctx.options.target_jax >= BROKEN_IN
        self.handled: set = set()  # references inside calls this rule rewrote or reported
        self.import_depth = 0
        self.heads: Optional[frozenset] = None

    def visit_Import(self, node: cst.Import) -> None:
        self.import_depth += 1

    def leave_Import(self, original_node: cst.Import) -> None:
        self.import_depth -= 1

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.import_depth += 1

    def leave_ImportFrom(self, original_node: cst.ImportFrom) -> None:
        self.import_depth -= 1

    def visit_Module(self, node: cst.Module) -> None:
        if not self.active:
            return
        reads = walk.reads_in(node)
        for binding in self.ctx.names.imports:
            dotted = isinstance(binding.statement, cst.Import) and any(
                get_full_name_for_node(a.name) == MODULE and a.asname is None for a in binding.statement.names)
            if not (dotted or binding.qualified == MODULE or binding.qualified.startswith(MODULE + ".")):
                continue
            if binding.top_level and not dotted and binding.local not in reads \
                    and compatibility_guard(self.ctx, binding.statement) is None:
                # Nothing reads it: no call's edit will drop it, so the import's own does.
                local = binding.local
                self.report(binding.statement, Safety.SAFE, f"{GONE}: the unused import of `{local}` goes "
                            "(it only fails at import time)",
                            lambda updated, local=local: import_without(updated, lambda a: _local(a) == local))
            else:
                drop_binding_if_unused(self.ctx, binding.local)  # once the calls that read it are rewritten

    # -- calls -------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if not self.active:
            return
        qual = self.ctx.qualified_name(node.func)
        if qual is None or not qual.startswith(MODULE + "."):
            return
        member = qual[len(MODULE) + 1:]
        self.handled.add(node.func)
        guard = compatibility_guard(self.ctx, node)
        if guard is not None:
            self.report(node, Safety.MANUAL, f"{GONE}; `{member}` inside the compatibility guard {guard} is left "
                        f"as is: that branch serves the releases that still have it")
            return
        if member not in PARAMS:
            advice = ("print with jax.debug.print(...) (or jax.debug.callback) instead" if member == "id_print"
                      else "use jax.pure_callback, jax.experimental.io_callback or jax.debug.callback")
            self.report(node, Safety.MANUAL, f"{GONE}: `{member}` has no rewrite here: {advice}")
            return
        args = self._bind(member, node)
        if isinstance(args, str):
            self.report(node, Safety.MANUAL, f"{GONE}: `{member}(...)` left as is ({args}): "
                        "use jax.experimental.io_callback / jax.pure_callback / jax.debug.callback")
            return
        for value in args.values():
            for sub in _attributes_in(value):
                self.handled.add(sub)
        if member == "barrier_wait":
            self.report(node, Safety.SAFE, f"{GONE}: `barrier_wait()` waited for the callbacks with "
                        "jax.effects_barrier() since 0.4.26, which it becomes", self._edit(member, node),
                        kernel_receives=KERNEL)
            return
        problem = self._unsupported(member, node, args)
        if problem:
            self.report(node, Safety.MANUAL, f"{GONE}: `{member}(...)` left as is: {problem}")
            return
        flavor = self._flavor(args.get("callback_flavor"))
        what = {"IO_CALLBACK": "jax.experimental.io_callback(..., ordered=True)", "PURE": "jax.pure_callback",
                "DEBUG": "jax.debug.callback"}[flavor]
        self.report(node, Safety.SAFE, f"{GONE}: `{member}(...)` becomes {what}, the callback jax 0.4.34 "
                    "ran it with (same device, same arguments)", self._edit(member, node),
                    kernel_receives=KERNEL)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._reference(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._reference(node)

    def _reference(self, node: cst.BaseExpression) -> None:
        """A use of a host_callback member that is not a call this rule saw: manual."""
        if not self.active or self.import_depth or node in self.handled:
            return
        up = self.ctx.parents.get(node)
        if isinstance(up, cst.NameItem):
            return  # ``global id_tap`` declares the name, it does not use it
        if isinstance(up, cst.Attribute) and up.value is node:
            return  # the longer chain is the reference
        if isinstance(up, cst.Call) and up.func is node:
            return  # visit_Call reports it
        dotted = get_full_name_for_node(node) or ""
        if dotted.split(".")[0] not in self._heads():
            return  # not read through an import (``TAP = id_tap`` binds TAP: its read is id_tap)
        qual = self.ctx.qualified_name(node)
        if qual is None or not qual.startswith(MODULE + "."):
            return
        if any(a in self.handled for a in self.ctx.ancestors_of(node)):
            return
        if compatibility_guard(self.ctx, node) is not None:
            return
        self.report(node, Safety.MANUAL, f"{GONE}: `{short(self.ctx.module.code_for_node(node))}` is used other than "
                    "in a call: use jax.experimental.io_callback / jax.pure_callback / jax.debug.callback")

    def _heads(self) -> frozenset:
        if self.heads is None:
            self.heads = frozenset(b.local for b in self.ctx.names.imports
                                   if b.qualified.startswith(MODULE) or b.qualified == "jax")
        return self.heads

    # -- arguments ---------------------------------------------------------------------
    @staticmethod
    def _bind(member: str, node: cst.Call):
        """The call's arguments by parameter name, or why they cannot be read."""
        names = PARAMS[member]
        bound: dict[str, cst.BaseExpression] = {}
        for index, arg in enumerate(node.args):
            if arg.star:
                return "its arguments are unpacked with * or **"
            if arg.keyword is None:
                if index >= POSITIONAL[member]:
                    return "more positional arguments than it takes"
                bound[names[index]] = arg.value
            elif arg.keyword.value in names:
                bound[arg.keyword.value] = arg.value
            else:
                return (f"keyword `{arg.keyword.value}`: jax 0.4.34 rejected extra keywords; pre-apply them with "
                        "functools.partial") if member == "id_tap" else f"unknown keyword `{arg.keyword.value}`"
        if member != "barrier_wait" and not {names[0], "arg"} <= set(bound):
            return "the function or its argument is missing"
        return bound

    def _flavor(self, value: Optional[cst.BaseExpression]) -> Optional[str]:
        if value is None:
            return "IO_CALLBACK"
        qual = self.ctx.qualified_name(value)
        if qual is not None and qual.startswith(MODULE + ".CallbackFlavor."):
            flavor = qual.rpartition(".")[2]
            return flavor if flavor in FLAVORS else None
        return None

    def _unsupported(self, member: str, node: cst.Call, args: dict) -> Optional[str]:
        device = "call_with_device" if member == "call" else "tap_with_device"
        if device in args and not _false(args[device]):
            return f"`{device}` raised NotImplementedError on jax 0.4.34 already: drop it, or pass the device yourself"
        flavor = self._flavor(args.get("callback_flavor"))
        if flavor is None:
            return "its callback_flavor is not a CallbackFlavor member spelled out"
        if member == "call" and flavor == "DEBUG":
            return "the DEBUG flavor never worked for call (it has results): use jax.pure_callback or io_callback"
        if member == "id_tap" and not isinstance(self.ctx.parents.get(node), cst.Expr):
            value = args.get("result", args["arg"])
            if not _plain(value):
                return (f"its value is used and `{short(self.ctx.module.code_for_node(value))}` is no plain name or "
                        "constant to return beside the callback")
        return None

    # -- the edit ----------------------------------------------------------------------
    def _edit(self, member: str, original: cst.Call):
        used = not isinstance(self.ctx.parents.get(original), cst.Expr)
        original_args = self._bind(member, original)
        assert isinstance(original_args, dict)
        flavor = self._flavor(original_args.get("callback_flavor"))

        def name(qualified: str) -> cst.BaseExpression:
            return cst.parse_expression(self.ctx.name_for(qualified, site=original))

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            if member == "barrier_wait":
                return updated.with_changes(func=name("jax.effects_barrier"), args=())
            args = self._bind(member, updated)
            assert isinstance(args, dict)
            device = args.get("device_index", cst.Integer("0"))
            sharding = cst.Call(name("jax.sharding.SingleDeviceSharding"), [cst.Arg(cst.Subscript(
                cst.Call(name("jax.local_devices")), [cst.SubscriptElement(cst.Index(device))]))])
            if member == "call":
                function, results = args["callback_func"], args.get("result_shape", cst.Name("None"))
            else:
                tap = cst.Module([]).code_for_node(args["tap_func"])
                param = next(p for p in ("tapped", "tapped_value", "_tapped_arg") if p not in tap)
                function = cst.parse_expression(f"lambda {param}: ({tap})({param}, ())" if not _plain(args["tap_func"])
                                                else f"lambda {param}: {tap}({param}, ())")
                results = cst.Name("None")
            if flavor == "DEBUG":
                func, values, keywords = name("jax.debug.callback"), [function, args["arg"]], []
            elif flavor == "PURE":
                func, values, keywords = name("jax.pure_callback"), [function, results, args["arg"]], [("sharding", sharding)]
            else:
                func, values = name("jax.experimental.io_callback"), [function, results, args["arg"]]
                keywords = [("sharding", sharding), ("ordered", cst.Name("True"))]
            call = updated.with_changes(func=func, args=_laid_out(updated.args, values, keywords))
            if member == "id_tap" and used:
                returned = args.get("result", args["arg"])
                return cst.Subscript(cst.Tuple([cst.Element(call), cst.Element(returned)]),
                                     [cst.SubscriptElement(cst.Index(cst.Integer("1")))])
            return call

        return edit


def _laid_out(old: Sequence[cst.Arg], values: list, keywords: list) -> list[cst.Arg]:
    """New arguments in the old ones' layout: the i-th takes the i-th old comma (the last
    the old last one's, trailing comma and line break included); any extra gets ", "."""
    plain = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    count = len(values) + len(keywords)
    out: list[cst.Arg] = []
    for index in range(count):
        if index == count - 1:
            comma = old[-1].comma if old else cst.MaybeSentinel.DEFAULT
        elif index < len(old) - 1:
            comma = old[index].comma
        else:
            comma = plain
        if index < len(values):
            out.append(cst.Arg(values[index], comma=comma))
        else:
            keyword, value = keywords[index - len(values)]
            out.append(cst.Arg(value, keyword=cst.Name(keyword), comma=comma,
                               equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                     whitespace_after=cst.SimpleWhitespace(""))))
    return out


def _local(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return get_full_name_for_node(alias.asname.name) or ""
    return (get_full_name_for_node(alias.name) or "").split(".")[0]


def _false(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Name) and value.value == "False"


def _plain(value: cst.BaseExpression) -> bool:
    """An expression whose evaluation has no effect: a name, an attribute chain, a constant."""
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString, cst.Name)):
        return True
    return isinstance(value, cst.Attribute) and get_full_name_for_node(value) is not None


def _attributes_in(value: cst.BaseExpression) -> list:
    found: list = []

    class _Collect(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            found.append(node)

        def visit_Name(self, node: cst.Name) -> None:
            found.append(node)

    value.visit(_Collect())
    return found
