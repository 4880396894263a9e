"""``register-custom-call-target``: ``xla_client.register_custom_call_target`` ->
``jax.ffi.register_ffi_target(..., api_version=0)``.

Legacy form
    ``xla_client.register_custom_call_target(name, capsule, platform="cpu")`` with
    ``xla_client`` from ``jax.lib``, ``jaxlib`` or ``jax._src.lib``, usually in a loop
    over a pybind11 module's ``registrations().items()``; the older
    ``register_cpu_custom_call_target(name, capsule)``. Names are often ``bytes``.

Removed
    ``jax.lib.xla_client.register_custom_call_target`` was deprecated in jax 0.4.35 and
    removed in 0.6.0; the whole ``jax.lib.xla_client`` module went in 0.9.0
    (``ImportError: cannot import name 'xla_client' from 'jax.lib'``). The ``jaxlib`` and
    ``jax._src.lib`` spellings are private modules that change without notice.

Replacement (minimum jax 0.5.0)
    ``jax.ffi.register_ffi_target(name, capsule, platform=..., api_version=0)``.
    ``api_version=0`` is written out because ``register_ffi_target`` defaults to 1 (typed
    FFI): registering an old-style C function as typed FFI and calling it crashes the
    process. ``bytes`` literal names are decoded (``register_ffi_target`` rejects bytes); an explicit
    ``api_version`` is kept. For a target jax below 0.6.0 the ``jax.lib`` spelling still
    works and is left alone.

What the kernel receives afterwards
    The same call with the same buffers: the target is registered in the same untyped
    registry under the same name and platform (``register_ffi_target`` calls the same
    ``xla_client.register_custom_call_target`` with ``api_version=0``). Registration emits
    no op of its own, so its compat case (``make test-compat``, and
    ``tests/test_ffi_rules_lowering.py``) registers a ctypes kernel through the legacy
    call on jax 0.5.3 and through the rewrite on the installed jax, runs it, and compares
    the outputs. ``safe``.

Before::

    from jax.lib import xla_client
    for _name, _value in cpu_ops.registrations().items():
        xla_client.register_custom_call_target(_name, _value, platform="cpu")

After::

    import jax
    for _name, _value in cpu_ops.registrations().items():
        jax.ffi.register_ffi_target(_name, _value, platform="cpu", api_version=0)
"""

from __future__ import annotations

import libcst as cst

from codemods.rule import Rule, Safety
from codemods.rules._shared import (
    drop_binding_if_unused,
    head_name,
    jax_fallback_guard,
    keyword,
    literal_bytes_as_str,
    one_line,
    positional,
    qualified_through_alias,
)

PUBLIC_MODULE = "jax.lib.xla_client"
PRIVATE_MODULES = ("jaxlib.xla_client", "jax._src.lib.xla_client", "jaxlib.xla_extension")
FUNCTIONS = ("register_custom_call_target", "register_cpu_custom_call_target")
#: ``jax.lib.xla_client.register_custom_call_target`` works on targets below this.
REMOVED = (0, 6, 0)
MINIMUM = (0, 5, 0)


class RegisterCustomCallTarget(Rule):
    __doc__ = __doc__
    name = "register-custom-call-target"
    summary = "xla_client.register_custom_call_target -> jax.ffi.register_ffi_target(..., api_version=0)."
    triggers = (b"custom_call_target",)
    statement_scoped = True

    def visit_Call(self, node: cst.Call) -> None:
        callee = node.func.attr.value if isinstance(node.func, cst.Attribute) else getattr(node.func, "value", None)
        if callee not in FUNCTIONS:
            return  # cheap test first: alias resolution may need the module's scopes
        qual = qualified_through_alias(self.ctx, node.func)
        if qual is None:
            return
        module, _, function = qual.rpartition(".")
        if function not in FUNCTIONS or module not in (PUBLIC_MODULE, *PRIVATE_MODULES):
            return
        target = self.ctx.options.target_jax
        if target < MINIMUM or (module == PUBLIC_MODULE and target < REMOVED):
            return
        guard = jax_fallback_guard(self.ctx, node)
        if guard is not None:
            self.report(
                node,
                Safety.MANUAL,
                f"{function} inside {guard} left as is: that branch serves older jax; on jax >= 0.5.0 "
                "register with jax.ffi.register_ffi_target(name, capsule, platform=..., api_version=0)",
            )
            return
        if any(a.star for a in node.args):
            self.report(
                node,
                Safety.MANUAL,
                f"{function} called with *args/**kwargs: call jax.ffi.register_ffi_target(name, capsule, "
                "platform=..., api_version=0) by hand (api_version=0: the default 1 crashes a legacy kernel)",
            )
            return
        new_func = self.ctx.name_for("jax.ffi.register_ffi_target", site=node)
        head = head_name(node.func)
        if head is not None:
            drop_binding_if_unused(self.ctx, head)
        where = "a private module" if module in PRIVATE_MODULES else "jax.lib (removed in jax 0.6.0)"
        given = keyword(node, "api_version")
        plain = positional(node)
        version = given.value if given is not None else plain[3].value if len(plain) > 3 else None
        if version is None:
            message = (f"{function} from {where} -> jax.ffi.register_ffi_target with api_version=0 "
                       "(the legacy untyped registry; the default api_version=1 would crash this kernel)")
            receives = "the same untyped custom-call arguments (registered with api_version=0)"
        else:
            spelt = one_line(self.ctx.module.code_for_node(version))
            message = f"{function} from {where} -> jax.ffi.register_ffi_target with the api_version it gave ({spelt})"
            receives = f"the same custom-call arguments (registered with api_version={spelt}, as before)"
        self.report(
            node,
            Safety.SAFE,
            message,
            lambda updated: _rewrite(updated, new_func, cpu_only=function == "register_cpu_custom_call_target"),
            kernel_receives=receives,
        )


def _rewrite(updated: cst.CSTNode, new_func: str, cpu_only: bool) -> cst.CSTNode:
    assert isinstance(updated, cst.Call)
    args = list(updated.args)
    out: list[cst.Arg] = []
    plain = positional(updated)
    for index, arg in enumerate(plain):
        value = arg.value
        if index == 0:
            value = literal_bytes_as_str(value) or value
            out.append(arg.with_changes(value=value))
        elif index == 1:
            out.append(arg)
        elif index == 2:
            out.append(_kw("platform", value, arg.comma))
        elif index == 3:
            out.append(_kw("api_version", value, arg.comma))
        else:
            out.append(arg)
    for arg in args:
        if arg.keyword is None:
            continue
        name = arg.keyword.value
        if name == "name":
            out.append(arg.with_changes(value=literal_bytes_as_str(arg.value) or arg.value))
        else:
            out.append(arg)
    if cpu_only and keyword(updated, "platform") is None and len(plain) < 3:
        out.append(_kw("platform", cst.SimpleString('"cpu"')))
    if keyword(updated, "api_version") is None and len(plain) < 4:
        out.append(_kw("api_version", cst.Integer("0")))
    for i, arg in enumerate(out[:-1]):
        if arg.comma is cst.MaybeSentinel.DEFAULT:
            out[i] = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    last = args[-1].comma if args else cst.MaybeSentinel.DEFAULT
    if out:
        out[-1] = out[-1].with_changes(comma=last if len(out) == len(args) else cst.MaybeSentinel.DEFAULT)
    n = len(args)
    if n >= 2 and len(out) > n and isinstance(last, cst.Comma) and isinstance(last.whitespace_after, cst.ParenthesizedWhitespace) \
            and isinstance(args[-2].comma, cst.Comma):
        # One argument per line with a trailing comma: the new ones go on lines of their own.
        sep = args[-2].comma
        if isinstance(sep.whitespace_after, cst.ParenthesizedWhitespace):
            # The same line break and indentation, without a comment that belongs to its line.
            sep = sep.with_changes(whitespace_after=sep.whitespace_after.with_changes(
                first_line=cst.TrailingWhitespace(), empty_lines=[]))
        out[n - 1 : -1] = [a.with_changes(comma=sep) for a in out[n - 1 : -1]]
        out[-1] = out[-1].with_changes(comma=last)
    elif args and len(out) > n:
        # The newline before ``)`` belongs to the old last argument: move it to the new one.
        closing = args[-1].whitespace_after_arg
        if not (isinstance(closing, cst.SimpleWhitespace) and closing.value == ""):
            out = [a.with_changes(whitespace_after_arg=cst.SimpleWhitespace("")) if a.whitespace_after_arg.deep_equals(closing) else a for a in out]
            out[-1] = out[-1].with_changes(whitespace_after_arg=closing)
    return updated.with_changes(func=cst.parse_expression(new_func), args=out)


def _kw(name: str, value: cst.BaseExpression, comma=cst.MaybeSentinel.DEFAULT) -> cst.Arg:
    return cst.Arg(
        keyword=cst.Name(name),
        value=value,
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
        comma=comma,
    )
