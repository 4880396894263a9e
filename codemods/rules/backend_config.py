"""``backend-config``: serialise every ``backend_config`` jax cannot take as it is.

What it rewrites
    The ``backend_config`` of ``custom_call`` (``jax.interpreters.mlir``, the private
    ``jax._src.interpreters.mlir``, ``jaxlib.hlo_helpers``, ``jaxlib.mhlo_helpers``), of
    ``jax.ffi.ffi_lowering`` / ``build_ffi_lowering_function`` called with an
    ``api_version`` below 4, ``ffi_call(..., legacy_backend_config=...)``, and the
    ``opaque`` of ``xla_client.ops.CustomCall`` / ``CustomCallWithLayout`` (which
    ``xla-translation-rule`` turns into a ``backend_config``: checking it in the same run
    keeps the first report complete). A ``custom_call`` imported on two paths
    (``try: from jaxlib.mhlo_helpers import custom_call`` / ``except ImportError: from
    jaxlib.hlo_helpers import custom_call``) counts as a custom call.

Why
    jax's custom-call builder accepts ``backend_config`` only as ``None``, ``str``,
    ``bytes`` or a dict of MLIR attributes. Anything else fails when the function is
    lowered: ``ValueError: custom_call backend_config unexpected type: ...`` for a list,
    number, dataclass or protobuf message, ``RuntimeError: std::bad_cast`` for a dict
    of plain values (``TypeError: unhashable type`` through ``ffi_call``).

How (api_version 1-3: the kernel gets an opaque byte string)
    ========================================  ===============================================
    config expression                          becomes
    ========================================  ===============================================
    dict / list / tuple / number / bool        ``json.dumps(v, sort_keys=True,
    literal, ``dict(...)``, a name bound       separators=(",", ":"))`` - the same bytes
    once to one of those                       whatever the dict's insertion order
    instance of a ``@dataclass`` defined or    ``json.dumps(dataclasses.asdict(v), ...)``
    imported in the module
    message built from a ``*_pb2`` module      ``v.SerializeToString(deterministic=True)``
    ========================================  ===============================================

    With an explicit ``api_version=4`` (typed FFI) a dict of plain values is not turned
    into JSON: its values are wrapped in ``mlir.ir_attribute(...)`` inside the lowering
    rule, which is the form typed FFI handlers decode.

Left alone
    ``str``/``bytes`` literals, f-strings, ``None``, ``json.dumps(...)``,
    ``.SerializeToString(...)``, ``.encode()``, ``.tobytes()``, ``struct.pack(...)``, the
    result of an extension's descriptor builder (``build_*_descriptor(...)``,
    ``*_opaque(...)`` of another module, also with one qualifying word
    (``build_fwd_descriptor_original``), picked with ``getattr(ext,
    f"build_descriptor{suffix}")``, or the element named ``opaque``/``*_descriptor`` of its
    unpacked result (``ws, opaque = build_fft_descriptor(...)``), or a name each of whose
    bindings is such a result (one builder per ``if`` branch): by the convention of
    jax's custom-call tutorials and jaxlib they pack a C struct into ``bytes``; the result
    of a plain function of this module each of whose returns gives such a value (``return
    json.dumps(cfg)``, or ``return cfg`` right after ``cfg = json.dumps(cfg)``: a
    cuDNN-style builder that assembles a dict and serialises it last); otherwise a function of this module, one of
    another project module that returns a dict or list literal, a class (``Descriptor(2,
    3)``), a dataclass or a message is classified as such), and
    dicts whose values are MLIR attributes (``ir.*Attr.get``, ``mlir.i64_attr``,
    ``mlir.ir_attribute``...): those are already valid, with any api_version (below 4
    jax emits the call with api_version 1, an empty backend_config and the dict as its
    ``mhlo.backend_config`` attribute, for ``ffi_lowering`` as for legacy
    ``mlir.custom_call``). Nothing is serialised twice.

    A value whose type cannot be proven (a parameter, an attribute read, a call) is
    reported for review with the reason. ``--unsafe-fixes`` routes it instead through a
    small runtime serialiser written into the module once, which passes ``str``/``bytes``
    through unchanged.

Before::

    return mlir.custom_call("scale", result_types=[t], operands=[x],
                            backend_config={"mode": "fast", "alpha": 2.0}).results

After::

    return mlir.custom_call("scale", result_types=[t], operands=[x],
                            backend_config=json.dumps({"mode": "fast", "alpha": 2.0}, sort_keys=True, separators=(",", ":"))).results

The kernel now receives the JSON text ``{"alpha":2.0,"mode":"fast"}``.
"""

from __future__ import annotations

import ast
import functools
import re
from typing import Callable, Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods import positions
from codemods.rule import Rule, Safety
from codemods.rules._shared import (
    OwnScope,
    forwarded_builder_call,
    keyword_value,
    positional,
    project_module_ast,
    project_module_file,
    qualified_through_alias,
    short,
)

CUSTOM_CALL = frozenset(
    {
        "jax.interpreters.mlir.custom_call",
        "jax._src.interpreters.mlir.custom_call",
        "jaxlib.hlo_helpers.custom_call",
        "jaxlib.mhlo_helpers.custom_call",
    }
)
#: Old ``hlo_helpers``/``mhlo_helpers`` signature: backend_config was 6th positional.
POSITIONAL_CONFIG = frozenset({"jaxlib.hlo_helpers.custom_call", "jaxlib.mhlo_helpers.custom_call"})
FFI_LOWERING = frozenset(
    {
        f"{prefix}.{fn}"
        for prefix in ("jax.ffi", "jax.extend.ffi", "jax._src.ffi")
        for fn in ("ffi_lowering", "build_ffi_lowering_function")
    }
)
#: ``xla_client.ops`` custom calls and the position of their ``opaque`` argument.
XLA_OPS_CUSTOM_CALL = {
    f"{client}.ops.{fn}": index
    for client in ("jax.lib.xla_client", "jaxlib.xla_client", "jax._src.lib.xla_client")
    for fn, index in (("CustomCall", 4), ("CustomCallWithLayout", 5))
}
FFI_CALL = frozenset({"jax.ffi.ffi_call", "jax.extend.ffi.ffi_call", "jax._src.ffi.ffi_call"})

HELPER = "_ccmigrate_backend_config"
HELPER_CODE = f'''
def {HELPER}(value):
    """Serialise a custom-call backend_config to the str/bytes jax accepts (added by ccmigrate)."""
    import dataclasses
    import json

    if value is None or isinstance(value, (str, bytes)):
        return value
    if hasattr(value, "SerializeToString"):
        return value.SerializeToString(deterministic=True)
    if isinstance(value, dict) and value and all(type(v).__module__.startswith("jaxlib.mlir") for v in value.values()):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)

    def _default(obj):
        if hasattr(obj, "tolist"):
            return obj.tolist()
        if isinstance(obj, (set, frozenset)):
            return sorted(obj)
        raise TypeError(f"backend_config value of type {{type(obj).__name__}} is not JSON serialisable")

    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_default)
'''.strip()

JSON_KW = 'sort_keys=True, separators=(",", ":")'
RECEIVES_JSON = "a JSON string (keys sorted, compact separators)"
RECEIVES_PROTO = "the message's serialised bytes (SerializeToString(deterministic=True))"
RECEIVES_TYPED = "typed FFI attributes (a dictionary of MLIR attributes)"

# Calls and methods whose result is already str/bytes (or an MLIR attribute).
SERIALISED_CALLS = frozenset(
    {
        "json.dumps", "pickle.dumps", "struct.pack", "base64.b64encode", "zlib.compress",
        "google.protobuf.json_format.MessageToJson", "builtins.str", "builtins.bytes",
    }
)
SERIALISED_METHODS = frozenset(
    {"SerializeToString", "SerializePartialToString", "encode", "decode", "tobytes", "to_json",
     "hex", "format", "join", "dumps", "pack", "tostring"}
)
#: A descriptor builder of an extension module (``gpu_ops.build_kepler_descriptor(...)``,
#: jaxlib's ``_lapack.build_getrf_descriptor``): by the convention of jax's custom-call
#: tutorials and of jaxlib itself it packs a C struct and returns ``bytes``.
#: What a function returning a Python container (not bytes) returns.
CONTAINER_NODES = (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
#: One trailing word may qualify it (``build_fwd_descriptor_original``), unless the word
#: names a container or a message rather than packed bytes.
DESCRIPTOR_BUILDER = re.compile(
    r"(?:^|_)(?:descriptor|opaque)(?:_(?!(?:dict|list|tuple|map|proto|pb2?|msg|message|obj|object|class|cls|spec)$)"
    r"[a-z0-9]+)?$", re.IGNORECASE)
MLIR_ATTR_FUNCS = frozenset({"ir_attribute", "i32_attr", "i64_attr", "dense_int_array", "dense_int_elements",
                             "dense_bool_elements", "dense_bool_array", "string_attr", "bool_attr",
                             "f32_attr", "f64_attr", "flat_symbol_ref_attr"})


class Kind:
    PASS = "pass"          # already valid
    ATTRS = "attrs"        # dict of MLIR attributes: valid typed-FFI form
    JSON = "json"          # plain data: serialise with json.dumps
    DATACLASS = "dataclass"
    PROTO = "proto"
    UNKNOWN = "unknown"


class BackendConfig(Rule):
    __doc__ = __doc__
    name = "backend-config"
    summary = "Serialise dict/list/number/dataclass/protobuf backend_config values jax rejects."
    # custom_call too: the old hlo_helpers signature passes the config positionally.
    triggers = (b"backend_config", b"custom_call", b"CustomCall")
    statement_scoped = True

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.function_depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.function_depth += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.function_depth -= 1

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.ctx.qualified_name(node.func)
        if qual is None:
            # ``try: from jaxlib.mhlo_helpers import custom_call`` / ``except ImportError:
            # from jaxlib.hlo_helpers import custom_call``: either binding is a custom_call.
            names = self.ctx.qualified_names(node.func)
            qual = min(names) if names and names <= CUSTOM_CALL else None
        if qual is None and isinstance(node.func, cst.Attribute):
            # ``xops = xla_client.ops`` then ``xops.CustomCallWithLayout(...)``.
            qual = qualified_through_alias(self.ctx, node.func)
        if qual not in CUSTOM_CALL and isinstance(node.func, cst.Name):
            qual = self._shim_builder(node.func) or qual
        if qual is None:
            return
        if qual in CUSTOM_CALL:
            value = keyword_value(node, "backend_config")
            if value is None and qual in POSITIONAL_CONFIG:
                args = positional(node)
                value = args[5].value if len(args) > 5 else None
            api = _api_version(node, "api_version", default=2)
            where = qual.rsplit(".", 1)[0] + ".custom_call"
        elif qual in FFI_LOWERING:
            value = keyword_value(node, "backend_config")
            api = _api_version(node, "api_version", default=4)
            where = qual
        elif qual in XLA_OPS_CUSTOM_CALL:
            # The XlaBuilder's ``opaque`` becomes the backend_config of the lowering rule
            # xla-translation-rule writes: check it now, so one run reports it.
            value = keyword_value(node, "opaque")
            if value is None:
                args = positional(node)
                index = XLA_OPS_CUSTOM_CALL[qual]
                value = args[index].value if len(args) > index else None
            api = _api_version(node, "api_version", default=1)
            where = "xla_client.ops." + qual.rsplit(".", 1)[1]
        elif qual in FFI_CALL:
            value = keyword_value(node, "legacy_backend_config")
            api = 3  # legacy_backend_config is always an opaque string
            where = qual
        else:
            return
        if value is not None:
            self.check(value, api, where)

    def _shim_builder(self, func: cst.Name) -> Optional[str]:
        """The custom-call builder a module-level signature shim forwards every argument to
        (``def custom_call(*args, **kwargs): return hlo_helpers.custom_call(*args,
        **kwargs).results``), when ``func`` names such a function: its calls pass the
        builder's backend_config (custom-call-api inlines them)."""
        if "custom_call" not in func.value:
            return None  # resolving names costs more than this test
        scope = self.ctx.scopes.get(func)
        bound = list(scope[func.value]) if scope is not None else []
        if len(bound) != 1 or not isinstance(bound[0].node, cst.FunctionDef) \
                or self.ctx.parents.get(bound[0].node) is not self.ctx.module:
            return None
        inner = forwarded_builder_call(bound[0].node)
        if inner is None:
            return None
        names = self.ctx.qualified_names(inner.func)
        return min(names) if names and names <= CUSTOM_CALL else None

    # -- classification -------------------------------------------------------
    def check(self, value: cst.BaseExpression, api: Optional[int], where: str) -> None:
        kind, detail = self.classify(value)
        if kind in (Kind.PASS,):
            return
        if kind == Kind.ATTRS:
            # Accepted with any api_version: below 4 the custom call is emitted with
            # api_version 1, an empty backend_config and the dict as its
            # ``mhlo.backend_config`` attribute, as legacy mlir.custom_call emitted it (and
            # as custom-call-api's rewrite of such a call keeps it).
            return
        if api == 4 or (api is None and where in FFI_LOWERING):
            self.check_typed(value, kind, detail, where, api)
            return
        if kind == Kind.JSON:
            problems, notes = _json_caveats(self._resolve_name(value))
            extra = f" ({'; '.join(notes)})" if notes else ""
            if problems:
                extra += f"; json.dumps would fail: {'; '.join(problems)}: review"
            self.report(
                value,
                Safety.UNSAFE if problems else Safety.SAFE,
                f"{detail} passed as backend_config to {where} is not str/bytes; serialised with json.dumps{extra}",
                self._json_edit(dataclass=False),
                kernel_receives=RECEIVES_JSON,
            )
        elif kind == Kind.DATACLASS:
            self.report(
                value,
                Safety.SAFE,
                f"dataclass {detail} passed as backend_config to {where}; serialised as JSON of dataclasses.asdict",
                self._json_edit(dataclass=True),
                kernel_receives=RECEIVES_JSON,
            )
        elif kind == Kind.PROTO:
            self.report(
                value,
                Safety.SAFE,
                f"protobuf message {detail} passed as backend_config to {where}; serialised with SerializeToString(deterministic=True)",
                _proto_edit,
                kernel_receives=RECEIVES_PROTO,
            )
        else:
            self.report(
                value,
                Safety.UNSAFE,
                f"cannot prove the type of backend_config {detail} passed to {where}; review it, "
                f"or run with --unsafe-fixes to route it through {HELPER}() (str/bytes pass through unchanged)",
                self._helper_edit,
                kernel_receives=f"the result of {HELPER}() (JSON for plain data, bytes for protobuf, unchanged str/bytes)",
            )

    def check_typed(self, value: cst.BaseExpression, kind: str, detail: str, where: str, api: Optional[int]) -> None:
        """api_version 4: a dict of plain values becomes a dict of MLIR attributes."""
        resolved = self._resolve_name(value)
        if kind == Kind.JSON and isinstance(resolved, cst.Dict) and self.function_depth > 0:
            self.report(
                value,
                Safety.SAFE,
                f"dict of plain values passed as backend_config to {where} with api_version=4; "
                "values wrapped in mlir.ir_attribute (typed FFI attributes, built inside the lowering rule)",
                self._typed_edit(isinstance(value, cst.Dict), value),
                kernel_receives=RECEIVES_TYPED,
            )
            return
        reason = (
            "attributes can only be built inside a lowering rule" if self.function_depth == 0
            else f"{detail} cannot become typed FFI attributes"
        )
        # The callee is not named: custom-call-api may rewrite it in this run, and the
        # message (an annotation under --annotate) must read the same on the next run.
        self.report(
            value,
            Safety.MANUAL,
            f"backend_config {detail} passed with api_version=4 must be a dict of MLIR attributes; "
            f"{reason}: pass the values as keyword attributes of the ffi_lowering call, or use an api_version < 4 with a serialised string",
        )

    def classify(self, value: cst.BaseExpression, depth: int = 0) -> tuple[str, str]:
        # The site's code only words a message: most configs pass and need none.
        code = functools.partial(self._code, value)
        if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return Kind.PASS, ""
        if isinstance(value, cst.Name):
            if value.value == "None":
                return Kind.PASS, ""
            if value.value in ("True", "False"):
                return Kind.JSON, "bool literal"
            bound = self.ctx.value_bound_once(value) if depth < 4 else None
            if bound is None and self._unpacked_from_descriptor_builder(value):
                return Kind.PASS, ""
            if bound is None and depth < 4 and self._every_binding_passes(value, depth):
                return Kind.PASS, ""
            if bound is None:
                return Kind.UNKNOWN, f"`{code()}` (not bound once to a literal in its scope)"
            kind, detail = self.classify(bound, depth + 1)
            if kind == Kind.UNKNOWN:
                return kind, f"`{code()}` (bound to {detail})"
            if kind == Kind.PASS:
                return kind, ""
            return kind, (detail if kind in (Kind.DATACLASS, Kind.PROTO) else f"`{code()}`")
        if isinstance(value, (cst.Integer, cst.Float)) or (
            isinstance(value, cst.UnaryOperation) and isinstance(value.expression, (cst.Integer, cst.Float))
        ):
            return Kind.JSON, "number literal"
        if isinstance(value, cst.Dict):
            if value.elements and self._all_attrs(value):
                return Kind.ATTRS, code()
            if not value.elements:
                return Kind.ATTRS, code()  # an empty dict is a (vacuous) typed-FFI config
            return Kind.JSON, "dict literal"
        if isinstance(value, cst.DictComp) and isinstance(value.value, cst.Call):
            # ``{k: mlir.ir_attribute(v) for k, v in CONFIG.items()}``: what the typed edit
            # writes for a dict bound to a name; already attributes, never reported again.
            func = value.value.func
            if _is_attr_constructor(self.ctx.qualified_name(func) or get_full_name_for_node(func) or ""):
                return Kind.ATTRS, code
        if isinstance(value, (cst.List, cst.Tuple)):
            return Kind.JSON, "tuple literal" if isinstance(value, cst.Tuple) else "list literal"
        if isinstance(value, cst.Call):
            return self._classify_call(value, code, depth)
        return Kind.UNKNOWN, f"`{code()}` ({_describe(value)})"

    def _code(self, value: cst.BaseExpression) -> str:
        return short(positions.code_for_node(self.ctx.module, value), limit=60)

    def _classify_call(self, call: cst.Call, code: Callable[[], str], depth: int = 0) -> tuple[str, str]:
        func = call.func
        dotted = get_full_name_for_node(func) or ""
        qual = self.ctx.qualified_name(func)
        if isinstance(func, cst.Name) and func.value == HELPER:
            return Kind.PASS, ""
        if isinstance(func, cst.Name) and func.value in ("dict", "str", "bytes", "repr") and not self.ctx.names.is_bound(func.value):
            if func.value == "dict" and call.args and all(a.keyword is not None and self._is_attr_value(a.value) for a in call.args):
                # ``dict(name=ir.StringAttr.get(n), ...)``: MLIR attributes already (jax's
                # Pallas Triton call and ``fused`` are written so).
                return Kind.ATTRS, code()
            return (Kind.JSON, "dict(...) call") if func.value == "dict" else (Kind.PASS, "")
        if qual in SERIALISED_CALLS:
            return Kind.PASS, ""
        if isinstance(func, cst.Attribute) and func.attr.value in SERIALISED_METHODS:
            return Kind.PASS, ""
        if _is_attr_constructor(qual or dotted):
            return Kind.PASS, ""
        if qual and any(part.endswith("_pb2") for part in qual.split(".")[:-1]):
            return Kind.PROTO, f"`{qual.rsplit('.', 1)[-1]}`"
        if isinstance(func, cst.Name):
            cls = self.ctx.class_def(func)
            if cls is not None and _is_dataclass_def(cls):
                return Kind.DATACLASS, f"`{func.value}`"
        if qual and self._imported_dataclass(qual):
            return Kind.DATACLASS, f"`{qual.rsplit('.', 1)[-1]}`"
        last = dotted.rsplit(".", 1)[-1]
        if DESCRIPTOR_BUILDER.search(last) and not last[:1].isupper() and not self._defined_here(func) \
                and not self._project_function_returns_values(qual):
            return Kind.PASS, ""
        if self._looked_up_descriptor_builder(func):
            return Kind.PASS, ""
        if isinstance(func, cst.Name) and depth < 4 and self._returns_serialised(func, depth):
            return Kind.PASS, ""
        return Kind.UNKNOWN, f"`{code()}` (the result of a call)"

    def _returns_serialised(self, func: cst.Name, depth: int) -> bool:
        """``func`` is a plain ``def`` of this module (the name's one binding), and each of its
        ``return``s gives a value that passes: ``return json.dumps(config)``, or ``return
        config`` right after ``config = json.dumps(config)`` in the same block (whatever
        ``config`` was bound to before). A cuDNN-style config builder assembles a dict and
        serialises it last."""
        function = self.ctx.function_def(func)
        if function is None or function.decorators or function.asynchronous is not None:
            return False
        returns = _own_returns(function)
        if not returns:
            return False
        for ret, before in returns:
            value = ret.value
            if value is None:
                return False
            if self.classify(value, depth + 1)[0] == Kind.PASS:
                continue
            # ``return config`` right after ``config = json.dumps(config)``.
            assign = before.body[0] if isinstance(before, cst.SimpleStatementLine) and len(before.body) == 1 else None
            if not (isinstance(value, cst.Name) and isinstance(assign, cst.Assign) and len(assign.targets) == 1
                    and isinstance(assign.targets[0].target, cst.Name) and assign.targets[0].target.value == value.value
                    and self.classify(assign.value, depth + 1)[0] == Kind.PASS):
                return False
        return True

    def _every_binding_passes(self, name: cst.Name, depth: int) -> bool:
        """``opaque = build_a_descriptor(...)`` in one branch and ``opaque =
        build_b_descriptor(...)`` in the other (pmwd, cuFFTMp): every binding of the name in
        its scope is a plain assignment of a value that passes as it is."""
        scope = self.ctx.scopes.get(name)
        assignments = list(scope.assignments[name.value]) if scope is not None else []
        if len(assignments) < 2:
            return False
        for assignment in assignments:
            target = assignment.node
            holder = self.ctx.parents.get(target)
            assign = self.ctx.parents.get(holder)
            if not (isinstance(target, cst.Name) and isinstance(holder, cst.AssignTarget) and isinstance(assign, cst.Assign)
                    and len(assign.targets) == 1):
                return False
            if self.classify(assign.value, depth + 1)[0] != Kind.PASS:
                return False
        return True

    def _looked_up_descriptor_builder(self, func: cst.BaseExpression) -> bool:
        """``getattr(ext, f"build_descriptor{suffix}")``: an extension module's builder picked
        by dtype (jax-finufft), named by the string's literal part."""
        if not (isinstance(func, cst.Call) and get_full_name_for_node(func.func) == "getattr"
                and not self.ctx.names.is_bound("getattr") and len(func.args) == 2
                and not any(a.keyword or a.star for a in func.args)):
            return False
        owner, name = func.args[0].value, func.args[1].value
        if isinstance(name, cst.SimpleString) and isinstance(name.evaluated_value, str):
            text = name.evaluated_value
        elif isinstance(name, cst.FormattedString) and isinstance(name.parts[0], cst.FormattedStringText):
            text = name.parts[0].value  # the literal head: ``build_descriptor`` of ``build_descriptor{f}``
        else:
            return False
        return bool(re.search(r"(?:^|_)(?:descriptor|opaque)", text, re.IGNORECASE)) and not self._defined_here(owner) \
            and not (isinstance(owner, cst.Name) and owner.value in ("self", "cls"))

    def _unpacked_from_descriptor_builder(self, name: cst.Name) -> bool:
        """``ws, opaque = gpu_ops.build_fft_descriptor(...)`` (jaxDecomp): the element named
        like a descriptor, of a descriptor builder's result, bound there once."""
        if not DESCRIPTOR_BUILDER.search(name.value):
            return False
        scope = self.ctx.scopes.get(name)
        assignments = list(scope.assignments[name.value]) if scope is not None else []
        if len(assignments) != 1:
            return False
        target = assignments[0].node
        element = self.ctx.parents.get(target)
        holder = self.ctx.parents.get(element)
        assign_target = self.ctx.parents.get(holder)
        assign = self.ctx.parents.get(assign_target)
        if not (isinstance(element, cst.Element) and isinstance(holder, (cst.Tuple, cst.List))
                and isinstance(assign_target, cst.AssignTarget) and isinstance(assign, cst.Assign)
                and len(assign.targets) == 1 and isinstance(assign.value, cst.Call)):
            return False
        kind, _ = self._classify_call(assign.value, lambda: "")
        return kind == Kind.PASS and get_full_name_for_node(assign.value.func) not in ("str", "bytes", "repr")

    def _defined_here(self, func: cst.BaseExpression) -> bool:
        """A function of this module (its result is in view, not an extension's bytes):
        a bare name the module binds other than by import, or a method through ``self``."""
        if isinstance(func, cst.Name):
            return self.ctx.names.is_bound(func.value) and self.ctx.qualified_name(func) is None
        return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls")

    def _project_function_returns_values(self, qual: Optional[str]) -> bool:
        """A descriptor builder of another project module that visibly returns a Python
        container (``return {"n": n}``) rather than an extension's bytes."""
        if not qual or "." not in qual:
            return False
        module, _, name = qual.rpartition(".")
        path = project_module_file(self.ctx.path, self.ctx.package, module)
        tree = project_module_ast(path, name.encode()) if path is not None else None
        if tree is None:
            return False
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                return any(isinstance(node, ast.Return) and isinstance(node.value, CONTAINER_NODES)
                           for node in ast.walk(stmt))
        return False

    def _all_attrs(self, value: cst.Dict) -> bool:
        return all(isinstance(e, cst.DictElement) and self._is_attr_value(e.value) for e in value.elements)

    def _is_attr_value(self, value: cst.BaseExpression) -> bool:
        """A call of an MLIR attribute constructor (``ir.StringAttr.get(...)``, ``mlir.i64_attr``)."""
        if not isinstance(value, cst.Call):
            return False
        func = value.func
        return _is_attr_constructor(self.ctx.qualified_name(func) or get_full_name_for_node(func) or "")

    def _resolve_name(self, value: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(value, cst.Name):
            return self.ctx.value_bound_once(value) or value
        return value

    def _imported_dataclass(self, qual: str) -> bool:
        module, _, cls = qual.rpartition(".")
        path = project_module_file(self.ctx.path, self.ctx.package, module)
        return path is not None and _file_defines_dataclass(path, cls)

    # -- edits -------------------------------------------------------------------
    def _json_edit(self, dataclass: bool):
        dumps = self.ctx.name_for("json.dumps")
        asdict = self.ctx.name_for("dataclasses.asdict") if dataclass else None

        def edit(node: cst.CSTNode) -> cst.CSTNode:
            inner = cst.Call(_expression(asdict), [cst.Arg(node)]) if asdict else node
            template = _expression(f"{dumps}(__value__, {JSON_KW})")
            return template.with_changes(args=[cst.Arg(inner), *template.args[1:]])

        return edit

    def _helper_edit(self, node: cst.CSTNode) -> cst.CSTNode:
        self.ctx.add_helper(HELPER, HELPER_CODE)
        return cst.Call(cst.Name(HELPER), [cst.Arg(node)])

    def _typed_edit(self, literal: bool, site: cst.CSTNode):
        attr = self._ir_attribute_name(site)

        def edit(node: cst.CSTNode) -> cst.CSTNode:
            if literal and isinstance(node, cst.Dict):
                wrapped = []
                for element in node.elements:
                    if isinstance(element, cst.DictElement):
                        call = cst.Call(cst.parse_expression(attr), [cst.Arg(element.value)])
                        element = element.with_changes(value=call)
                    wrapped.append(element)
                return node.with_changes(elements=wrapped)
            return cst.parse_expression(f"{{_k: {attr}(_v) for _k, _v in __x__.items()}}").visit(_Substitute(node))

        return edit

    def _ir_attribute_name(self, site: cst.CSTNode) -> str:
        public = "jax.interpreters.mlir.ir_attribute"  # public from jax 0.7.1
        private = "jax._src.interpreters.mlir.ir_attribute"
        wanted = (public, private) if self.ctx.options.target_jax >= (0, 7, 1) else (private,)
        spelt = [t for t in (self.ctx.names.binding_for(c) for c in wanted) if t is not None]
        if spelt:
            return min(spelt, key=len)  # the most specific binding in scope
        return self.ctx.name_for(wanted[0], site=site)


@functools.lru_cache(maxsize=64)
def _expression(code: str) -> cst.BaseExpression:
    """``cst.parse_expression(code)``, parsed once per spelling: nodes are immutable, so
    every site may share them, and a module can hold hundreds of sites."""
    return cst.parse_expression(code)


class _Substitute(cst.CSTTransformer):
    def __init__(self, value: cst.CSTNode) -> None:
        super().__init__()
        self.value = value

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name):
        return self.value if original_node.value == "__x__" else updated_node


def _proto_edit(node: cst.CSTNode) -> cst.CSTNode:
    receiver = node if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) else cst.parse_expression(f"({cst.Module([]).code_for_node(node)})")
    return cst.parse_expression("__x__.SerializeToString(deterministic=True)").visit(_Substitute(receiver))


def _api_version(call: cst.Call, keyword: str, default: int) -> Optional[int]:
    value = keyword_value(call, keyword)
    if value is None:
        return default
    if isinstance(value, cst.Integer):
        return int(value.evaluated_value)
    return None


def _is_attr_constructor(name: str) -> bool:
    parts = name.split(".")
    if not parts:
        return False
    if parts[-1] in MLIR_ATTR_FUNCS:
        return True
    # ir.IntegerAttr.get(...), ir.StringAttr.get(...), ir.DictAttr.get(...), ir.TypeAttr.get(...)
    return len(parts) >= 2 and parts[-2].endswith("Attr") and parts[-1].startswith("get")


def _json_caveats(node: cst.CSTNode) -> tuple[list[str], list[str]]:
    """What JSON does to a literal: (problems that make json.dumps fail, notes for the reader).

    Tuples come back as lists and numeric keys as strings; the call never lowered with
    the original value, so that is what the kernel can receive, but the reader should
    know. Bytes, sets and complex numbers, and keys ``sort_keys`` cannot order, make
    ``json.dumps`` raise: those rewrites need review.
    """
    notes: set[str] = set()
    problems: set[str] = set()

    def is_bytes(n: cst.CSTNode) -> bool:
        if isinstance(n, cst.SimpleString):
            return "b" in n.prefix.lower()
        return isinstance(n, cst.ConcatenatedString) and is_bytes(n.left)

    def is_number(n: cst.CSTNode) -> bool:
        if isinstance(n, cst.UnaryOperation):
            n = n.expression
        return isinstance(n, (cst.Integer, cst.Float))

    def walk(n: cst.CSTNode) -> None:
        if is_bytes(n):
            problems.add("bytes values are not JSON serialisable")
        elif isinstance(n, (cst.Set, cst.SetComp)):
            problems.add("sets are not JSON serialisable")
        elif isinstance(n, cst.Imaginary) or (isinstance(n, cst.UnaryOperation) and isinstance(n.expression, cst.Imaginary)):
            problems.add("complex numbers are not JSON serialisable")
        elif isinstance(n, cst.Dict):
            key_kinds = set()
            for element in n.elements:
                if not isinstance(element, cst.DictElement):
                    continue
                key = element.key
                if is_bytes(key):
                    key_kinds.add("bytes")
                elif isinstance(key, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
                    key_kinds.add("str")
                elif is_number(key):
                    key_kinds.add("number")
                    notes.add("numeric keys become strings")
                else:
                    key_kinds.add(type(key).__name__)
                walk(element.value)
            if len(key_kinds) > 1 or key_kinds - {"str", "number"}:
                problems.add("its keys mix types that sort_keys cannot order")
        elif isinstance(n, (cst.List, cst.Tuple)):
            if isinstance(n, cst.Tuple):
                notes.add("tuples become JSON arrays")
            for element in n.elements:
                walk(element.value)

    walk(node)
    return sorted(problems), sorted(notes)


def _is_dataclass_def(cls: cst.ClassDef) -> bool:
    for decorator in cls.decorators:
        target = decorator.decorator
        if isinstance(target, cst.Call):
            target = target.func
        name = get_full_name_for_node(target) or ""
        if name.rsplit(".", 1)[-1] == "dataclass":
            return True
    return False


def _file_defines_dataclass(path: str, cls: str) -> bool:
    tree = project_module_ast(path)
    if tree is None:
        return False
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name == "dataclass":
                    return True
    return False


def _describe(node: cst.CSTNode) -> str:
    if isinstance(node, cst.Attribute):
        return "an attribute read"
    if isinstance(node, cst.Subscript):
        return "a subscript"
    if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
        return "an operator expression"
    if isinstance(node, cst.IfExp):
        return "a conditional expression"
    return type(node).__name__


def _own_returns(function: cst.FunctionDef) -> list[tuple[cst.Return, Optional[cst.CSTNode]]]:
    """Each ``return`` of ``function``'s own body (not of nested functions, classes or
    lambdas) with the statement before its line in the same block; none for a generator."""
    found: list[tuple[cst.Return, Optional[cst.CSTNode]]] = []
    generator = False

    class _Returns(OwnScope):
        def visit_Yield(self, node: cst.Yield) -> None:
            nonlocal generator
            generator = True

        def _block(self, body) -> None:
            previous = None
            for stmt in body:
                if isinstance(stmt, cst.SimpleStatementLine):
                    for small in stmt.body:
                        if isinstance(small, cst.Return):
                            found.append((small, previous if len(stmt.body) == 1 else None))
                previous = stmt

        def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
            self._block(node.body)

        def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
            for small in node.body:
                if isinstance(small, cst.Return):
                    found.append((small, None))

    function.visit(_Returns(function))
    return [] if generator else found
