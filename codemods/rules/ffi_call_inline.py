"""``ffi-call-inline``: the inline ``ffi_call(name, result, *args, **attrs)`` form and
``vectorized=``.

Legacy form
    ``ffi_call("rms_norm", out_type, x, eps=np.float32(1e-5), vectorized=True)`` from
    ``jax.extend.ffi`` (jax 0.4.31-0.5.x) or ``jax.ffi`` (0.5.x): operands and FFI
    attributes passed to ``ffi_call`` itself, batching chosen with ``vectorized``.

Removed
    Both deprecated in jax 0.4.35 and removed in 0.6.0:
    ``TypeError: ffi_call() takes 2 positional arguments but 3 were given``,
    ``TypeError: ffi_call() got an unexpected keyword argument 'vectorized'`` (or the name
    of an inline attribute), ``ValueError: The 'vectorized' argument of jax.ffi.ffi_call
    was removed in JAX v0.6.0``.

Replacement (minimum jax 0.4.35)
    ``ffi_call(name, result, <options>, vmap_method=...)(*args, **attrs)``. The options of
    ``ffi_call`` itself (``has_side_effect``, ``vmap_method``, ``input_layouts``,
    ``output_layouts``, ``input_output_aliases``, ``custom_call_api_version``,
    ``legacy_backend_config``) stay on it; every other keyword is an FFI attribute and
    moves to the call. ``vectorized`` maps to ``vmap_method``:

    ====================  =============================================
    ``vectorized``        ``vmap_method``
    ====================  =============================================
    ``True``              ``"legacy_vectorized"`` (the exact old rule)
    ``False`` or absent   ``"sequential"`` (the old default behaviour)
    any other expression  ``"legacy_vectorized" if v else "sequential"``
    ====================  =============================================

    For a target jax below 0.6.0 the inline form still works and is left alone.

What the kernel receives afterwards
    The same operands and the same attributes: the lowered ``custom_call`` is
    identical (checked by ``make test-compat`` against jax 0.5.3), and batching under
    ``vmap`` follows the same rule. ``safe``, except where ``**kwargs`` is forwarded
    (``unsafe``: the dictionary is moved to the call as attributes, which is wrong for
    any ``ffi_call`` option it holds) and where both ``vectorized`` and ``vmap_method``
    are given (``manual``: jax rejected that combination).

Before::

    y = ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                     eps=np.float32(eps), vectorized=True)

After::

    y = ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype),
                     vmap_method="legacy_vectorized")(x, eps=np.float32(eps))
"""

from __future__ import annotations

import libcst as cst

from codemods.rule import Rule, Safety
from codemods.rules._shared import TIGHT_EQUAL, is_called, jax_fallback_guard, keyword, positional

FFI_CALL = frozenset({"jax.ffi.ffi_call", "jax.extend.ffi.ffi_call", "jax._src.ffi.ffi_call"})
#: Keywords of ``ffi_call`` itself (jax 0.4.35 onwards); all others are FFI attributes.
OPTIONS = frozenset(
    {
        "target_name", "result_shape_dtypes", "has_side_effect", "vmap_method", "input_layouts",
        "output_layouts", "input_output_aliases", "custom_call_api_version", "legacy_backend_config",
    }
)
REMOVED = (0, 6, 0)


class FfiCallInline(Rule):
    __doc__ = __doc__
    name = "ffi-call-inline"
    summary = "Split inline ffi_call(name, result, *args, **attrs) and map vectorized= to vmap_method."
    triggers = (b"ffi_call",)
    statement_scoped = True

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.options.target_jax < REMOVED:
            return
        qual = self.ctx.qualified_name(node.func)
        if qual not in FFI_CALL:
            return
        if is_called(self.ctx, node):
            return  # already ffi_call(...)(...)
        plain = positional(node)
        operands = plain[2:] + [a for a in node.args if a.star == "*"]
        attrs = [a for a in node.args if a.keyword is not None and a.keyword.value not in OPTIONS | {"vectorized"}]
        forwarded = [a for a in node.args if a.star == "**"]
        vectorized = keyword(node, "vectorized")
        vmap_method = keyword(node, "vmap_method")
        inline = bool(operands or attrs or forwarded)
        if not inline and vectorized is None:
            return
        guard = jax_fallback_guard(self.ctx, node)
        if guard is not None:
            self.report(
                node,
                Safety.MANUAL,
                f"inline ffi_call inside {guard} left as is: that branch serves jax releases before 0.6.0; "
                "on newer jax write ffi_call(name, result, vmap_method=...)(*args, **attrs)",
            )
            return
        if vectorized is not None and vmap_method is not None:
            self.report(
                node,
                Safety.MANUAL,
                "ffi_call given both vectorized= and vmap_method=: keep only vmap_method "
                "(vectorized=True meant \"legacy_vectorized\", False meant \"sequential\")",
            )
            return
        if len(plain) < 2 and keyword(node, "result_shape_dtypes") is None:
            self.report(node, Safety.MANUAL, "ffi_call without a positional result type: split the operands into a second call by hand")
            return
        if inline and len(plain) < 2:
            self.report(node, Safety.MANUAL, "inline ffi_call with keyword target/result: write ffi_call(name, result, ...)(*args, **attrs) by hand")
            return
        safety = Safety.UNSAFE if forwarded else Safety.SAFE
        parts = []
        if inline:
            parts.append("operands and attributes passed to ffi_call itself (removed in jax 0.6.0) moved to the call")
        if vectorized is not None:
            parts.append("vectorized= (removed in jax 0.6.0) mapped to vmap_method")
        elif vmap_method is None:
            parts.append('vmap_method="sequential" written out (the old default)')
        message = "; ".join(parts)
        if forwarded:
            message += "; review: **kwargs is now passed as FFI attributes, so any ffi_call option in it must move back"
        self.report(node, safety, message, _split)


def _split(updated: cst.CSTNode) -> cst.CSTNode:
    assert isinstance(updated, cst.Call)
    head: list[cst.Arg] = []
    tail: list[cst.Arg] = []
    # The whitespace before each argument (after the previous comma): where the comments
    # written between arguments live.
    leads = [updated.whitespace_before_args, *(
        a.comma.whitespace_after if isinstance(a.comma, cst.Comma) else cst.SimpleWhitespace("") for a in updated.args[:-1])]
    lead_of: dict[int, cst.BaseParenthesizableWhitespace] = {}
    seen_positional = 0
    vectorized = None
    vectorized_lead = None
    has_vmap = False
    for arg, lead in zip(updated.args, leads):
        lead_of[id(arg)] = lead
        if arg.keyword is None and arg.star == "":
            if seen_positional < 2:
                head.append(arg)
            else:
                tail.append(arg)
            seen_positional += 1
        elif arg.star:
            tail.append(arg)
        elif arg.keyword.value == "vectorized":
            vectorized = arg.value
            vectorized_lead = lead
        elif arg.keyword.value in OPTIONS:
            has_vmap = has_vmap or arg.keyword.value == "vmap_method"
            head.append(arg)
        else:
            tail.append(arg)
    if not has_vmap:
        head.append(cst.Arg(keyword=cst.Name("vmap_method"), value=_vmap_method(vectorized), equal=TIGHT_EQUAL))
        if vectorized_lead is not None:
            lead_of[id(head[-1])] = vectorized_lead
    if any(_commented(lead) for lead in leads):
        return _split_keeping_comments(updated, head, tail, lead_of)
    # Keep a one-argument-per-line call that way: reuse its separators for the options.
    line_comma = next(
        (a.comma for a in updated.args if isinstance(a.comma, cst.Comma) and isinstance(a.comma.whitespace_after, cst.ParenthesizedWhitespace)),
        None,
    )
    last_comma = updated.args[-1].comma if updated.args else cst.MaybeSentinel.DEFAULT
    head = _fix_commas(head, line_comma, last_comma if line_comma is not None else cst.MaybeSentinel.DEFAULT)
    tail = _fix_commas([a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in tail])
    inner = updated.with_changes(args=head)
    if not tail:
        return inner
    return cst.Call(func=inner, args=tail)


def _commented(ws: cst.BaseParenthesizableWhitespace) -> bool:
    return isinstance(ws, cst.ParenthesizedWhitespace) and (
        ws.first_line.comment is not None or any(line.comment is not None for line in ws.empty_lines))


def _uncommented(ws: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    if not isinstance(ws, cst.ParenthesizedWhitespace):
        return ws
    return ws.with_changes(first_line=ws.first_line.with_changes(comment=None),
                           empty_lines=[line for line in ws.empty_lines if line.comment is None])


def _split_keeping_comments(updated: cst.Call, head: list[cst.Arg], tail: list[cst.Arg],
                            lead_of: dict[int, cst.BaseParenthesizableWhitespace]) -> cst.CSTNode:
    """The split of a call with comments between its arguments: each argument keeps the
    lines written before it, wherever it goes; both calls close as the original did."""
    args = updated.args
    closing = args[-1].comma if args else cst.MaybeSentinel.DEFAULT
    # A new argument without a place of its own (vmap_method) is laid out like the last one.
    plain_lead = _uncommented(lead_of.get(id(args[-1]), cst.SimpleWhitespace(" "))) if args else cst.SimpleWhitespace("")

    def assemble(call: cst.Call, items: list[cst.Arg]) -> cst.Call:
        items_leads = [lead_of.get(id(a), plain_lead) for a in items]
        laid = []
        for i, arg in enumerate(items):
            comma = (cst.Comma(whitespace_after=items_leads[i + 1]) if i + 1 < len(items)
                     else closing)
            laid.append(arg.with_changes(comma=comma))
        return call.with_changes(args=laid, whitespace_before_args=items_leads[0] if items else call.whitespace_before_args)

    inner = assemble(updated, head)
    if not tail:
        return inner
    return assemble(cst.Call(func=inner, args=[]), tail)


def _vmap_method(vectorized) -> cst.BaseExpression:
    if vectorized is None or (isinstance(vectorized, cst.Name) and vectorized.value == "False"):
        return cst.SimpleString('"sequential"')
    if isinstance(vectorized, cst.Name) and vectorized.value == "True":
        return cst.SimpleString('"legacy_vectorized"')
    return cst.IfExp(
        test=vectorized,
        body=cst.SimpleString('"legacy_vectorized"'),
        orelse=cst.SimpleString('"sequential"'),
    )


def _fix_commas(args: list[cst.Arg], line_comma=None, last=cst.MaybeSentinel.DEFAULT) -> list[cst.Arg]:
    """Separate the arguments (one per line when ``line_comma`` says so); ``last`` ends them."""
    fixed = []
    for i, arg in enumerate(args):
        if i < len(args) - 1:
            if line_comma is not None:
                arg = arg.with_changes(comma=line_comma)
            elif arg.comma is cst.MaybeSentinel.DEFAULT:
                arg = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        else:
            arg = arg.with_changes(comma=last)
        fixed.append(arg)
    return fixed
