"""Mutation fuzzing of every rule: real-code shapes of the fixtures, checked for the
invariants ccmigrate promises on any input file.

    python benchmarks/fuzz.py                      # every seed x every mutation kind
    python benchmarks/fuzz.py --stack 3 --rounds 4 # also stacked random mutations
    python benchmarks/fuzz.py --kinds crlf,tabs --seeds custom-call-api -v
    python benchmarks/fuzz.py --lower              # also lower the compat cases' mutants

Seeds are every rule fixture's legacy source (``testdata/rules/*/*.py``, not the
``.expected.py`` files) and the demo repository's modules. Each mutation rewrites a
seed the way real extension code differs from it: import spellings and aliases, code
moved into classes, closures, platform branches and compatibility guards, keyword and
positional arguments, comments and line breaks inside calls, line endings, tabs, a BOM,
annotations, decorators, walrus, f-strings, match, async, a statement deleted or
duplicated; a few kinds break the file on purpose.

For each mutant, run through the engine as ``ccmigrate apply`` runs it:

* ``crash``: the engine raised, or reported an internal error;
* ``error``: a file Python compiles got an error; or an error message is not one line;
* ``compile``: the rewrite does not compile where the mutant did;
* ``idempotent``: a second run changes the rewrite again, or fails on it;
* ``unreported``: a reference to an API the installed jax lacks is left in the rewrite
  (counted as ``benchmarks/missing_apis.py`` counts them) with no manual finding that
  covers its line;
* ``shadowed``: code where a jax module's name is a local variable was changed;
* ``lowering`` (``--lower``): for the rules' compat cases, the mutant's rewrite lowers
  to a custom_call differing from the unmutated rewrite's (target, api_version,
  backend_config bytes, layouts, types) or from what ``compat.toml`` declares.

Prints one line per failure and a table of mutants and failures per kind; exit status 1
when anything failed.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import difflib
import glob
import os
import random
import re
import sys
import tempfile
import traceback
from typing import Callable, Iterable, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import libcst as cst  # noqa: E402

from benchmarks import missing_apis  # noqa: E402
from codemods.context import Options  # noqa: E402
from codemods.engine import process_candidate  # noqa: E402
from codemods.rule import Safety  # noqa: E402
from codemods.rules import all_rules  # noqa: E402

TESTDATA = os.path.join(ROOT, "testdata")
JAX_ROOTS = ("jax", "jaxlib")


# -- seeds ------------------------------------------------------------------------


def seeds(directory: Optional[str] = None) -> list[str]:
    """The fixtures, or every Python file under ``directory`` (real code kept outside the
    repository)."""
    if directory is not None:
        return sorted(glob.glob(os.path.join(directory, "**", "*.py"), recursive=True))
    rules = sorted(p for p in glob.glob(os.path.join(TESTDATA, "rules", "*", "*.py")) if not p.endswith(".expected.py"))
    demo = sorted(glob.glob(os.path.join(TESTDATA, "demo", "src", "**", "*.py"), recursive=True))
    return rules + [p for p in demo if not p.endswith("_pb2.py")]


def seed_id(path: str) -> str:
    return os.path.relpath(path, TESTDATA)


# -- helpers for mutations ----------------------------------------------------------


Mutation = Callable[[bytes, random.Random], Optional[bytes]]
MUTATIONS: dict[str, Mutation] = {}
#: Kinds after which the module still does what the seed did (its lowering can be compared).
PRESERVING: set[str] = set()
#: Kinds that break the file on purpose: the run must give a one-line error or leave it.
BREAKING: set[str] = set()


def mutation(name: str, preserving: bool = False, breaking: bool = False):
    def register(fn: Mutation) -> Mutation:
        MUTATIONS[name] = fn
        if preserving:
            PRESERVING.add(name)
        if breaking:
            BREAKING.add(name)
        return fn

    return register


def _parse(src: bytes) -> Optional[cst.Module]:
    try:
        return cst.parse_module(src)
    except Exception:  # noqa: BLE001 - a mutation that does not apply
        return None


def _code(module: cst.Module) -> bytes:
    return module.bytes


def _dotted(node: Optional[cst.CSTNode]) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner else ""
    return ""


def _is_jax(module_name: str) -> bool:
    return module_name.split(".")[0] in JAX_ROOTS


def _stmt(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code)


def _expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


#: Names that name modules when imported from a jax package (``from jax.interpreters import mlir``).
MODULE_NAMES = {
    "mlir", "xla", "xla_client", "hlo_helpers", "mhlo_helpers", "xla_bridge", "ffi", "core", "ir", "hlo",
    "stablehlo", "mhlo", "ad", "batching", "partial_eval", "lib", "extend", "interpreters", "dialects",
    "xla_extension", "lax", "numpy", "dtypes", "func", "arith",
}


def _is_module_import(module_name: str, name: str) -> bool:
    # ``ir`` and ``hlo`` of jax.interpreters.mlir are attributes (re-exported modules):
    # ``import jax.interpreters.mlir.hlo`` never worked.
    return _is_jax(module_name) and name in MODULE_NAMES and module_name != "jax.interpreters.mlir"


class _Positions(cst.CSTVisitor):
    """Nodes that are spellings, not uses, of a name: attribute names, keywords, import names."""

    def __init__(self) -> None:
        self.skip: set[int] = set()
        self.binders: set[str] = set()  # names bound as parameters, defs, classes, globals

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.skip.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))

    def visit_ImportAlias(self, node: cst.ImportAlias) -> bool:
        for sub in _all_nodes(node.name):
            self.skip.add(id(sub))
        return True

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None:
            for sub in _all_nodes(node.module):
                self.skip.add(id(sub))

    def visit_Param(self, node: cst.Param) -> None:
        self.binders.add(node.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.binders.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.binders.add(node.name.value)

    def visit_Global(self, node: cst.Global) -> None:
        self.binders.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.binders.update(n.name.value for n in node.names)


def _all_nodes(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    yield node
    for child in node.children:
        yield from _all_nodes(child)


def _positions(module: cst.Module) -> _Positions:
    found = _Positions()
    module.visit(found)
    return found


class _Rename(cst.CSTTransformer):
    """Replace uses of names by expressions (``{"mlir": "m"}`` or ``{"mlir": "jax.interpreters.mlir"}``)."""

    def __init__(self, mapping: dict[str, str], skip: set[int]) -> None:
        self.mapping = mapping
        self.skip = skip

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if id(original) in self.skip or original.value not in self.mapping:
            return updated
        new = _expr(self.mapping[original.value])
        return new.with_changes(lpar=updated.lpar, rpar=updated.rpar) if isinstance(new, (cst.Name, cst.Attribute)) else new


def _jax_from_imports(module: cst.Module) -> list[tuple[cst.ImportFrom, str]]:
    found = []

    class V(cst.CSTVisitor):
        def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
            name = _dotted(node.module)
            if not node.relative and _is_jax(name) and not isinstance(node.names, cst.ImportStar):
                found.append((node, name))

    module.visit(V())
    return found


def _replace_nodes(module: cst.Module, replacements: dict[int, Callable[[cst.CSTNode], cst.CSTNode]]) -> cst.Module:
    class T(cst.CSTTransformer):
        def on_leave(self, original, updated):
            fn = replacements.get(id(original))
            return fn(updated) if fn is not None else updated

    return module.visit(T())


@mutation("seed", preserving=True)
def unmutated(src: bytes, rng: random.Random) -> Optional[bytes]:
    """The seed itself: what its mutants' failures are measured against."""
    return src


# -- import spellings --------------------------------------------------------------


@mutation("import_alias", preserving=True)
def import_alias(src: bytes, rng: random.Random) -> Optional[bytes]:
    """``from jax.interpreters import mlir`` -> ``... import mlir as _mlir_alias`` and its uses."""
    module = _parse(src)
    if module is None:
        return None
    pos = _positions(module)
    mapping: dict[str, str] = {}
    for node, _ in _jax_from_imports(module):
        for alias in node.names:
            if isinstance(alias.name, cst.Name) and alias.asname is None and alias.name.value not in pos.binders \
                    and rng.random() < 0.8:
                mapping[alias.name.value] = f"{alias.name.value}_alias"
    if not mapping:
        return None
    module = module.visit(_Rename(mapping, pos.skip))
    # The import aliases themselves were skipped by identity: set them from the new names.
    return _code(_replace_by_code(module, mapping))


def _replace_by_code(module: cst.Module, mapping: dict[str, str]) -> cst.Module:
    class T(cst.CSTTransformer):
        def leave_ImportFrom(self, original, updated):
            name = _dotted(updated.module)
            if updated.relative or not _is_jax(name) or isinstance(updated.names, cst.ImportStar):
                return updated
            names = []
            for alias in updated.names:
                if alias.asname is None and isinstance(alias.name, cst.Name) and alias.name.value in mapping:
                    alias = alias.with_changes(asname=cst.AsName(name=cst.Name(mapping[alias.name.value])))
                names.append(alias)
            return updated.with_changes(names=names)

    return module.visit(T())


@mutation("import_dotted", preserving=True)
def import_dotted(src: bytes, rng: random.Random) -> Optional[bytes]:
    """``from jax.interpreters import mlir`` -> ``import jax.interpreters.mlir`` with dotted uses."""
    module = _parse(src)
    if module is None:
        return None
    pos = _positions(module)
    mapping: dict[str, str] = {}

    class T(cst.CSTTransformer):
        def leave_SimpleStatementLine(self, original, updated):
            body = []
            for small in updated.body:
                if isinstance(small, cst.ImportFrom) and not small.relative and not isinstance(small.names, cst.ImportStar):
                    base = _dotted(small.module)
                    keep, moved = [], []
                    for alias in small.names:
                        local = alias.asname.name.value if alias.asname else _dotted(alias.name)
                        if _is_module_import(base, _dotted(alias.name)) and local not in pos.binders and local not in mapping:
                            mapping[local] = f"{base}.{_dotted(alias.name)}"
                            moved.append(f"{base}.{_dotted(alias.name)}")
                        else:
                            keep.append(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))
                    if keep:
                        body.append(small.with_changes(names=keep, lpar=None, rpar=None))
                    for dotted in moved:
                        body.append(cst.Import(names=[cst.ImportAlias(name=_expr(dotted))]))
                else:
                    body.append(small)
            if not body:
                return cst.RemoveFromParent()
            return updated.with_changes(body=[b.with_changes(semicolon=cst.MaybeSentinel.DEFAULT) for b in body])

    module = module.visit(T())
    if not mapping:
        return None
    pos = _positions(module)
    return _code(module.visit(_Rename(mapping, pos.skip)))


@mutation("import_module_as", preserving=True)
def import_module_as(src: bytes, rng: random.Random) -> Optional[bytes]:
    """``from jaxlib import hlo_helpers as hh`` -> ``import jaxlib.hlo_helpers as hh``."""
    module = _parse(src)
    if module is None:
        return None
    done = []

    class T(cst.CSTTransformer):
        def leave_SimpleStatementLine(self, original, updated):
            body = []
            for small in updated.body:
                if isinstance(small, cst.ImportFrom) and not small.relative and not isinstance(small.names, cst.ImportStar):
                    base = _dotted(small.module)
                    keep = []
                    for alias in small.names:
                        name = _dotted(alias.name)
                        if _is_module_import(base, name):
                            local = alias.asname.name.value if alias.asname else name
                            body.append(cst.Import(names=[cst.ImportAlias(name=_expr(f"{base}.{name}"), asname=cst.AsName(name=cst.Name(local)))]))
                            done.append(name)
                        else:
                            keep.append(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))
                    if keep:
                        body.insert(0, small.with_changes(names=keep, lpar=None, rpar=None))
                else:
                    body.append(small)
            return updated.with_changes(body=[b.with_changes(semicolon=cst.MaybeSentinel.DEFAULT) for b in body])

    module = module.visit(T())
    return _code(module) if done else None


@mutation("import_in_function", preserving=True)
def import_in_function(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Top-level jax imports also repeated inside each function that uses them (lazy imports)."""
    module = _parse(src)
    if module is None:
        return None
    imports: dict[str, cst.SimpleStatementLine] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], (cst.Import, cst.ImportFrom)):
            imp = stmt.body[0]
            base = _dotted(imp.module) if isinstance(imp, cst.ImportFrom) else _dotted(imp.names[0].name)
            if isinstance(imp, cst.ImportFrom) and (imp.relative or isinstance(imp.names, cst.ImportStar)):
                continue
            if not _is_jax(base):
                continue
            for alias in imp.names:
                local = alias.asname.name.value if alias.asname else _dotted(alias.name).split(".")[0]
                imports[local] = stmt.with_changes(leading_lines=())
    if not imports:
        return None
    changed = []

    class T(cst.CSTTransformer):
        def __init__(self):
            self.depth = 0

        def visit_FunctionDef(self, node):
            self.depth += 1

        def leave_FunctionDef(self, original, updated):
            self.depth -= 1
            if self.depth or not isinstance(updated.body, cst.IndentedBlock):
                return updated
            used = {n.value for n in _all_nodes(updated.body) if isinstance(n, cst.Name)}
            params = {p.name.value for p in _all_nodes(updated.params) if isinstance(p, cst.Param)}
            wanted = [imports[n] for n in sorted(used & set(imports) - params)]
            if not wanted:
                return updated
            body = list(updated.body.body)
            at = 1 if body and _is_docstring(body[0]) else 0
            changed.append(updated.name.value)
            seen = []
            for stmt in wanted:
                if not any(stmt is s for s in seen):
                    seen.append(stmt)
            return updated.with_changes(body=updated.body.with_changes(body=[*body[:at], *seen, *body[at:]]))

    module = module.visit(T())
    return _code(module) if changed else None


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


# -- code moved ----------------------------------------------------------------------


def _top_defs(module: cst.Module) -> list[int]:
    return [i for i, stmt in enumerate(module.body) if isinstance(stmt, cst.FunctionDef)]


def _rebuild(module: cst.Module, index: int, replacement: list[cst.BaseStatement]) -> cst.Module:
    body = list(module.body)
    replacement[0] = replacement[0].with_changes(leading_lines=body[index].leading_lines)
    body[index:index + 1] = replacement
    return module.with_changes(body=body)


def _indent(code: str, prefix: str = "    ") -> str:
    return "".join(prefix + line if line.strip() else line for line in code.splitlines(True))


def _def_code(module: cst.Module, stmt: cst.CSTNode) -> str:
    return module.code_for_node(stmt.with_changes(leading_lines=()))


def _wrap_top_defs(src: bytes, rng: random.Random, template: Callable[[str, str], str]) -> Optional[bytes]:
    module = _parse(src)
    if module is None:
        return None
    indices = _top_defs(module)
    if not indices:
        return None
    for index in reversed(indices):
        stmt = module.body[index]
        code = template(stmt.name.value, _def_code(module, stmt))
        new = cst.parse_module(code, cst.PartialParserConfig(default_newline=module.default_newline)).body
        module = _rebuild(module, index, list(new))
    return _code(module)


@mutation("wrap_class", preserving=True)
def wrap_class(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Each top-level function becomes a static method, rebound at module level."""
    return _wrap_top_defs(src, rng, lambda name, code: (
        f"class _{name}_holder:\n    @staticmethod\n{_indent(code)}\n{name} = _{name}_holder.{name}\n"))


@mutation("nest_function", preserving=True)
def nest_function(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Each top-level function is defined inside a factory and returned from it."""
    return _wrap_top_defs(src, rng, lambda name, code: (
        f"def _make_{name}():\n{_indent(code)}    return {name}\n\n\n{name} = _make_{name}()\n"))


def _is_import_line(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _wrap_statements(src: bytes, rng: random.Random, select: Callable[[cst.CSTNode], bool], head: str, tail: str = "",
                     prelude: str = "") -> Optional[bytes]:
    module = _parse(src)
    if module is None:
        return None
    body = list(module.body)
    picked = [i for i, stmt in enumerate(body) if select(stmt) and not (i == 0 and _is_docstring(stmt))]
    if not picked:
        return None
    nl = module.default_newline
    for i in reversed(picked):
        stmt = body[i]
        code = _indent(_def_code(module, stmt)).replace("\n", nl) if nl != "\n" else _indent(_def_code(module, stmt))
        text = f"{head}{nl}{code}{tail}".replace("\n", nl) if nl != "\n" else f"{head}\n{code}{tail}"
        new = list(cst.parse_module(text, cst.PartialParserConfig(default_newline=nl)).body)
        new[0] = new[0].with_changes(leading_lines=stmt.leading_lines)
        body[i:i + 1] = new
    if prelude:
        at = _after_imports(body)
        body[at:at] = list(cst.parse_module(prelude).body)
    return _code(module.with_changes(body=body))


def _after_imports(body: list) -> int:
    at = 0
    for i, stmt in enumerate(body):
        if _is_import_line(stmt) or (i == 0 and _is_docstring(stmt)):
            at = i + 1
    return at


def _is_future(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(s, cst.ImportFrom) and _dotted(s.module) == "__future__" for s in stmt.body)


def _jax_import(stmt: cst.CSTNode) -> bool:
    if not _is_import_line(stmt) or _is_future(stmt):
        return False
    for small in stmt.body:
        if isinstance(small, cst.ImportFrom):
            if not small.relative and _is_jax(_dotted(small.module)):
                return True
        elif any(_is_jax(_dotted(a.name)) for a in small.names):
            return True
    return False


def _bound_names(stmt: cst.SimpleStatementLine) -> list[str]:
    names = []
    for small in stmt.body:
        if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                names.append(alias.asname.name.value if alias.asname else _dotted(alias.name).split(".")[0])
    return names


@mutation("if_platform", preserving=True)
def if_platform(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Definitions and registrations moved under ``if _platform == "cpu":`` (a per-platform branch)."""
    def select(stmt):
        return isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) or (
            isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], (cst.Expr, cst.Assign)) and not _is_docstring(stmt))
    return _wrap_statements(src, rng, select, 'if _platform == "cpu":', 'elif _platform == "rocm":\n    pass\n',
                            prelude='_platform = "cpu"\n')


@mutation("try_import_guard", preserving=True)
def try_import_guard(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Each jax import inside ``try: ... except ImportError:`` binding its names to None."""
    module = _parse(src)
    if module is None:
        return None
    body = list(module.body)
    picked = [i for i, stmt in enumerate(body) if _jax_import(stmt)]
    if not picked:
        return None
    for i in reversed(picked):
        stmt = body[i]
        names = _bound_names(stmt)
        fallback = " = ".join(names) + " = None" if names else "pass"
        text = f"try:\n{_indent(_def_code(module, stmt))}except ImportError:\n    {fallback}\n"
        new = list(cst.parse_module(text).body)
        new[0] = new[0].with_changes(leading_lines=stmt.leading_lines)
        body[i:i + 1] = new
    return _code(module.with_changes(body=body))


@mutation("try_fallback_import")
def try_fallback_import(src: bytes, rng: random.Random) -> Optional[bytes]:
    """``try: from jax import ffi / except ImportError: <legacy ffi import>`` (code written for two releases)."""
    module = _parse(src)
    if module is None:
        return None
    body = list(module.body)
    picked = [i for i, stmt in enumerate(body) if _jax_import(stmt) and _bound_names(stmt) == ["ffi"]]
    if not picked:
        return None
    i = rng.choice(picked)
    stmt = body[i]
    text = f"try:\n    from jax import ffi\nexcept ImportError:\n{_indent(_def_code(module, stmt))}"
    new = list(cst.parse_module(text).body)
    new[0] = new[0].with_changes(leading_lines=stmt.leading_lines)
    body[i:i + 1] = new
    return _code(module.with_changes(body=body))


@mutation("version_guard", preserving=True)
def version_guard(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Functions and registrations under ``if jax.__version_info__ >= (0, 4, 0):``."""
    def select(stmt):
        return isinstance(stmt, cst.FunctionDef) or (
            isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr) and not _is_docstring(stmt))
    out = _wrap_statements(src, rng, select, "if jax.__version_info__ >= (0, 4, 0):",
                           'else:\n    raise ImportError("needs jax 0.4 or later")\n', prelude="import jax\n")
    return out


@mutation("version_guard_else")
def version_guard_else(src: bytes, rng: random.Random) -> Optional[bytes]:
    """``if jax.__version_info__ < (0, 4, 31): <legacy> else: <legacy copy>``: both branches hold the site."""
    def select(stmt):
        return isinstance(stmt, cst.FunctionDef)
    module = _parse(src)
    if module is None:
        return None
    body = list(module.body)
    picked = [i for i in _top_defs(module)]
    if not picked:
        return None
    i = rng.choice(picked)
    code = _indent(_def_code(module, body[i]))
    text = f"if jax.__version_info__ < (0, 4, 31):\n{code}else:\n{code}"
    new = list(cst.parse_module(text).body)
    new[0] = new[0].with_changes(leading_lines=body[i].leading_lines)
    body[i:i + 1] = new
    at = _after_imports(body)
    body[at:at] = list(cst.parse_module("import jax\n").body)
    return _code(module.with_changes(body=body))


# -- calls -----------------------------------------------------------------------------


#: Positional parameter names of the APIs the rules migrate (by the callee's last name).
SIGNATURES = {
    "custom_call": ["call_target_name"],
    "CustomCallWithLayout": ["builder", "call_target_name", "operands", "shape_with_layout", "operand_shapes_with_layout",
                             "opaque", "has_side_effect"],
    "CustomCall": ["builder", "call_target_name", "operands", "shape", "opaque", "has_side_effect"],
    "register_custom_call_target": ["name", "fn", "platform", "api_version"],
    "register_ffi_target": ["name", "fn", "platform", "api_version"],
    "ffi_call": ["target_name", "result_shape_dtypes"],
    "ffi_lowering": ["call_target_name"],
    "aval_to_ir_type": ["aval"],
    "register_lowering": ["prim", "rule", "platform"],
    "ir_constant": ["val"],
}
#: The old hlo_helpers.custom_call signature (jaxlib 0.4.8-0.4.14), when a call passes more than one positional.
OLD_CUSTOM_CALL = ["call_target_name", "out_types", "operands", "operand_layouts", "result_layouts", "backend_config",
                   "has_side_effect", "api_version"]


def _callee_name(call: cst.Call) -> str:
    func = call.func
    while isinstance(func, cst.Call):
        func = func.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return func.value
    return ""


def _signature(call: cst.Call) -> Optional[list[str]]:
    name = _callee_name(call)
    if name == "custom_call" and sum(1 for a in call.args if a.keyword is None and not a.star) > 1:
        return OLD_CUSTOM_CALL
    for key, params in SIGNATURES.items():
        if name == key or name.lower() == key.lower():
            return params
    return None


def _call_mutation(src: bytes, rng: random.Random, change: Callable[[cst.Call, random.Random], Optional[cst.Call]]) -> Optional[bytes]:
    module = _parse(src)
    if module is None:
        return None
    count = [0]

    class T(cst.CSTTransformer):
        def leave_Call(self, original, updated):
            new = change(updated, rng)
            if new is None:
                return updated
            count[0] += 1
            return new

    module = module.visit(T())
    return _code(module) if count[0] else None


@mutation("keyword_order", preserving=True)
def keyword_order(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Keyword arguments of every call in another order."""
    def change(call, rng):
        args = list(call.args)
        kw = [i for i, a in enumerate(args) if a.keyword is not None and not a.star]
        if len(kw) < 2 or kw != list(range(kw[0], kw[0] + len(kw))) or any(a.star for a in args[kw[-1] + 1:]):
            return None
        chosen = [args[i] for i in kw]
        order = list(range(len(chosen)))
        rng.shuffle(order)
        if order == sorted(order):
            order.reverse()
        commas = [a.comma for a in chosen]
        moved = [chosen[j].with_changes(comma=commas[k]) for k, j in enumerate(order)]
        args[kw[0]:kw[-1] + 1] = moved
        return call.with_changes(args=args)
    return _call_mutation(src, rng, change)


@mutation("positional_to_keyword", preserving=True)
def positional_to_keyword(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Positional arguments of the migrated APIs given by keyword."""
    def change(call, rng):
        params = _signature(call)
        if not params:
            return None
        args = list(call.args)
        changed = False
        for i, arg in enumerate(args):
            if arg.keyword is not None or arg.star or i >= len(params):
                break
            args[i] = arg.with_changes(keyword=cst.Name(params[i]), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
            changed = True
        return call.with_changes(args=args) if changed else None
    return _call_mutation(src, rng, change)


@mutation("keyword_to_positional", preserving=True)
def keyword_to_positional(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Keyword arguments of the migrated APIs given by position where the signature allows."""
    def change(call, rng):
        params = _signature(call)
        if not params:
            return None
        args = list(call.args)
        positional = [a for a in args if a.keyword is None and not a.star]
        if any(a.star for a in args):
            return None
        keyword = {a.keyword.value: a for a in args if a.keyword is not None}
        name = _callee_name(call)
        if name == "custom_call" and "out_types" in keyword:
            params = OLD_CUSTOM_CALL
        moved = []
        for p in params[len(positional):]:
            if p not in keyword:
                break
            moved.append(keyword.pop(p))
        if not moved:
            return None
        new_args = positional + [a.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT) for a in moved]
        new_args += [a for a in args if a.keyword is not None and a.keyword.value in keyword]
        new_args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in new_args[:-1]] + [
            new_args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        return call.with_changes(args=new_args)
    return _call_mutation(src, rng, change)


@mutation("trailing_comma", preserving=True)
def trailing_comma(src: bytes, rng: random.Random) -> Optional[bytes]:
    """A trailing comma after the last argument of every call."""
    def change(call, rng):
        if not call.args or call.args[-1].comma is not cst.MaybeSentinel.DEFAULT:
            return None
        if len(call.args) == 1 and isinstance(call.args[0].value, cst.GeneratorExp) and not call.args[0].value.lpar:
            return None
        args = list(call.args)
        args[-1] = args[-1].with_changes(comma=cst.Comma())
        return call.with_changes(args=args)
    return _call_mutation(src, rng, change)


def _comment_break(text: str) -> cst.ParenthesizedWhitespace:
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(text)),
        empty_lines=(), indent=True, last_line=cst.SimpleWhitespace("    "))


@mutation("call_comments", preserving=True)
def call_comments(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Every argument of the migrated APIs' calls on its own line, each with a comment."""
    def change(call, rng):
        if not call.args or _signature(call) is None and rng.random() < 0.7:
            return None
        args = []
        for i, arg in enumerate(call.args):
            if i < len(call.args) - 1 or arg.comma is not cst.MaybeSentinel.DEFAULT:
                arg = arg.with_changes(comma=cst.Comma(whitespace_after=_comment_break(f"# ({i}) ) ] }} note")))
            args.append(arg)
        return call.with_changes(args=args, whitespace_before_args=_comment_break("# args: ("))
    return _call_mutation(src, rng, change)


@mutation("parenthesised", preserving=True)
def parenthesised(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Callees and argument values of the migrated APIs in parentheses: ``(mlir.custom_call)((name), ...)``."""
    def change(call, rng):
        if _signature(call) is None and not _callee_name(call).lower().endswith(("customcall", "custom_call", "customcallop")):
            return None
        args = [a if a.star else a.with_changes(value=_paren(a.value)) for a in call.args]
        func = call.func
        if isinstance(func, (cst.Attribute, cst.Name)):
            func = _paren(func)
        return call.with_changes(func=func, args=args)
    return _call_mutation(src, rng, change)


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, cst.GeneratorExp):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen(), *expr.lpar], rpar=[*expr.rpar, cst.RightParen()])


@mutation("star_args", preserving=True)
def star_args(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Arguments of the migrated APIs passed as ``*(...)`` and ``**{...}``."""
    def change(call, rng):
        if _signature(call) is None or not call.args or any(a.star for a in call.args):
            return None
        positional = [a for a in call.args if a.keyword is None]
        keyword = [a for a in call.args if a.keyword is not None]
        new = []
        if positional and rng.random() < 0.5:
            elements = [cst.Element(value=a.value) for a in positional]
            new.append(cst.Arg(value=cst.Tuple(elements=elements if len(elements) > 1 else [
                cst.Element(value=positional[0].value, comma=cst.Comma())]), star="*"))
        else:
            new.extend(a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in positional)
        if keyword:
            pairs = [cst.DictElement(key=cst.SimpleString(repr(a.keyword.value)), value=a.value) for a in keyword]
            new.append(cst.Arg(value=cst.Dict(elements=pairs), star="**"))
        if len(new) == len(call.args) and not any(a.star for a in new):
            return None
        new = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in new[:-1]] + [new[-1]]
        return call.with_changes(args=new)
    return _call_mutation(src, rng, change)


# -- text and layout ---------------------------------------------------------------------


@mutation("crlf", preserving=True)
def crlf(src: bytes, rng: random.Random) -> Optional[bytes]:
    if b"\r\n" in src:
        return None
    return src.replace(b"\n", b"\r\n")


@mutation("tabs", preserving=True)
def tabs(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Blocks indented with tabs."""
    module = _parse(src)
    if module is None or module.default_indent == "\t":
        return None

    class T(cst.CSTTransformer):
        def leave_IndentedBlock(self, original, updated):
            return updated.with_changes(indent=None)

    return _code(module.visit(T()).with_changes(default_indent="\t"))


@mutation("bom", preserving=True)
def bom(src: bytes, rng: random.Random) -> Optional[bytes]:
    return None if src.startswith(b"\xef\xbb\xbf") else b"\xef\xbb\xbf" + src


@mutation("coding_line", preserving=True)
def coding_line(src: bytes, rng: random.Random) -> Optional[bytes]:
    """A ``# -*- coding: latin-1 -*-`` line, with a latin-1 comment below it."""
    if b"coding" in src.split(b"\n", 2)[0]:
        return None
    try:
        src.decode("ascii")
    except UnicodeDecodeError:
        return b"# -*- coding: utf-8 -*-\n" + src
    lines = src.split(b"\n", 1)
    if lines[0].startswith(b"#!"):
        return lines[0] + b"\n# -*- coding: latin-1 -*-\n# caf\xe9\n" + lines[1]
    return b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + src


@mutation("no_final_newline", preserving=True)
def no_final_newline(src: bytes, rng: random.Random) -> Optional[bytes]:
    stripped = src.rstrip(b"\r\n")
    return stripped + b"  # end" if stripped != src else None


# -- syntax sugar -------------------------------------------------------------------------


@mutation("annotations", preserving=True)
def annotations(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Parameter and return annotations on every function (``ctx: "mlir.LoweringRuleContext"``)."""
    module = _parse(src)
    if module is None:
        return None
    count = [0]

    class T(cst.CSTTransformer):
        def leave_FunctionDef(self, original, updated):
            def annotate(p):
                if p.annotation is not None or not isinstance(p, cst.Param):
                    return p
                text = '"mlir.LoweringRuleContext"' if p.name.value == "ctx" else ("ir.Value" if rng.random() < 0.3 else "object")
                text = '"ir.Value"' if text == "ir.Value" else text
                return p.with_changes(annotation=cst.Annotation(annotation=_expr(text)))
            params = updated.params
            params = params.with_changes(
                params=[annotate(p) for p in params.params],
                kwonly_params=[annotate(p) for p in params.kwonly_params],
                posonly_params=[annotate(p) for p in params.posonly_params],
            )
            count[0] += 1
            returns = updated.returns or cst.Annotation(annotation=_expr('"Sequence[ir.Value]"'))
            return updated.with_changes(params=params, returns=returns)

    module = module.visit(T())
    return _code(module) if count[0] else None


@mutation("decorators", preserving=True)
def decorators(src: bytes, rng: random.Random) -> Optional[bytes]:
    """A no-op decorator on every function."""
    module = _parse(src)
    if module is None or not any(isinstance(n, cst.FunctionDef) for n in _all_nodes(module)):
        return None

    class T(cst.CSTTransformer):
        def leave_FunctionDef(self, original, updated):
            return updated.with_changes(decorators=[cst.Decorator(decorator=cst.Name("_fuzz_keep")), *updated.decorators])

    module = module.visit(T())
    body = list(module.body)
    at = _after_imports(body)
    body[at:at] = list(cst.parse_module("def _fuzz_keep(fn):\n    return fn\n").body)
    return _code(module.with_changes(body=body))


@mutation("global_decl", preserving=True)
def global_decl(src: bytes, rng: random.Random) -> Optional[bytes]:
    """``global <module name>`` at the top of each top-level function that reads an imported name."""
    module = _parse(src)
    if module is None:
        return None
    imported = set()
    for stmt in module.body:
        if _is_import_line(stmt) and not _is_future(stmt):
            imported.update(_bound_names(stmt))
    count = [0]
    body = list(module.body)
    for i, stmt in enumerate(body):
        if not isinstance(stmt, cst.FunctionDef) or not isinstance(stmt.body, cst.IndentedBlock):
            continue
        params = {p.name.value for p in _all_nodes(stmt.params) if isinstance(p, cst.Param)}
        assigned = set()
        for n in _all_nodes(stmt.body):
            if isinstance(n, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.WithItem, cst.NamedExpr,
                              cst.Import, cst.ImportFrom, cst.FunctionDef, cst.ClassDef, cst.CompFor, cst.AsName,
                              cst.Global, cst.Nonlocal, cst.MatchAs, cst.ExceptHandler, cst.MatchStar)):
                assigned.update(x.value for x in _all_nodes(n) if isinstance(x, cst.Name))
        used = {n.value for n in _all_nodes(stmt.body) if isinstance(n, cst.Name)}
        names = sorted((used & imported) - params - assigned)
        if not names:
            continue
        inner = list(stmt.body.body)
        at = 1 if inner and _is_docstring(inner[0]) else 0
        inner.insert(at, _stmt(f"global {', '.join(names)}\n"))
        body[i] = stmt.with_changes(body=stmt.body.with_changes(body=inner))
        count[0] += 1
    return _code(module.with_changes(body=body)) if count[0] else None


SHADOW_MARK = "_fuzz_shadowed"


@mutation("shadow_local")
def shadow_local(src: bytes, rng: random.Random) -> Optional[bytes]:
    """A function where each imported jax name is a local variable (a user object): it must stay."""
    module = _parse(src)
    if module is None:
        return None
    names = []
    for stmt in module.body:
        if _jax_import(stmt):
            names.extend(n for n in _bound_names(stmt) if n not in names)
    if not names:
        return None
    lines = [f"def {SHADOW_MARK}(factory, x):"]
    for name in names:
        lines.append(f"    {name} = factory()")
        lines.append(f"    y = {name}.custom_call(\"k\", x, operands=[x], backend_config={{'a': 1}})")
        lines.append(f"    {name}.register_custom_call_target(b\"k\", x, platform=\"cpu\")")
        lines.append(f"    {name}.aval_to_ir_type(y)")
    lines.append("    return x")
    text = "\n".join(lines) + "\n"
    nl = module.default_newline
    body = list(module.body) + list(cst.parse_module(text).body)
    body[-1] = body[-1].with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
    out = _code(module.with_changes(body=body))
    return out.replace(b"\n", nl.encode()) if nl != "\n" and b"\r\n" not in out else out


def shadowed_text(mutant: bytes) -> Optional[bytes]:
    start = mutant.find(f"def {SHADOW_MARK}(".encode())
    return mutant[start:] if start >= 0 else None


@mutation("walrus", preserving=True)
def walrus(src: bytes, rng: random.Random) -> Optional[bytes]:
    """``x = expr`` inside functions written ``(x := expr)``."""
    module = _parse(src)
    if module is None:
        return None
    count = [0]

    class T(cst.CSTTransformer):
        def __init__(self):
            self.depth = 0

        def visit_FunctionDef(self, node):
            self.depth += 1

        def leave_FunctionDef(self, original, updated):
            self.depth -= 1
            return updated

        def visit_ClassDef(self, node):
            self.depth -= 100

        def leave_ClassDef(self, original, updated):
            self.depth += 100
            return updated

        def leave_Assign(self, original, updated):
            if self.depth <= 0 or len(updated.targets) != 1 or not isinstance(updated.targets[0].target, cst.Name):
                return updated
            value = updated.value
            if isinstance(value, (cst.Yield, cst.Await)):
                return updated
            if isinstance(value, cst.Tuple) and not value.lpar:
                value = _paren(value)
            count[0] += 1
            return cst.Expr(value=cst.NamedExpr(target=updated.targets[0].target, value=value,
                                                lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))

    module = module.visit(T())
    return _code(module) if count[0] else None


@mutation("fstring", preserving=True)
def fstring(src: bytes, rng: random.Random) -> Optional[bytes]:
    """String literals (target names, platforms, keys) written as f-strings."""
    module = _parse(src)
    if module is None:
        return None
    skip: set[int] = set()

    class Skip(cst.CSTVisitor):
        def visit_Annotation(self, node):
            skip.update(id(n) for n in _all_nodes(node))

        def visit_MatchValue(self, node):
            skip.update(id(n) for n in _all_nodes(node))

        def visit_FormattedString(self, node):
            skip.update(id(n) for n in _all_nodes(node))

        def visit_SimpleStatementLine(self, node):
            if _is_docstring(node):
                skip.update(id(n) for n in _all_nodes(node))

        def visit_ImportFrom(self, node):
            skip.update(id(n) for n in _all_nodes(node))

        def visit_ConcatenatedString(self, node):
            skip.update(id(n) for n in _all_nodes(node))

    module.visit(Skip())
    count = [0]

    class T(cst.CSTTransformer):
        def leave_SimpleString(self, original, updated):
            if id(original) in skip or updated.prefix or "{" in updated.value or "}" in updated.value:
                return updated
            if updated.value.startswith(("'''", '"""')) or "\\" in updated.value:
                return updated
            count[0] += 1
            quote = updated.value[0]
            inner = updated.value[1:-1]
            if rng.random() < 0.5 and len(inner) > 1:
                cut = len(inner) // 2
                other = "'" if quote == '"' else '"'
                if other in inner[cut:]:
                    return _expr("f" + updated.value).with_changes(lpar=updated.lpar, rpar=updated.rpar)
                return _expr(f"f{quote}{inner[:cut]}{{{other}{inner[cut:]}{other}}}{quote}").with_changes(
                    lpar=updated.lpar, rpar=updated.rpar)
            return _expr("f" + updated.value).with_changes(lpar=updated.lpar, rpar=updated.rpar)

    module = module.visit(T())
    return _code(module) if count[0] else None


@mutation("match_wrap", preserving=True)
def match_wrap(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Each top-level function's body inside ``match <first parameter>: case _:``."""
    module = _parse(src)
    if module is None:
        return None
    body = list(module.body)
    count = 0
    for i, stmt in enumerate(body):
        if not isinstance(stmt, cst.FunctionDef) or not isinstance(stmt.body, cst.IndentedBlock):
            continue
        params = list(stmt.params.params) + list(stmt.params.posonly_params)
        subject = params[0].name.value if params else "None"
        inner = list(stmt.body.body)
        doc = inner[:1] if inner and _is_docstring(inner[0]) else []
        rest = inner[len(doc):]
        if not rest:
            continue
        code = "".join(module.code_for_node(s) for s in rest)
        match = cst.parse_statement(f"match {subject}:\n    case _:\n{_indent(_indent(code))}")
        body[i] = stmt.with_changes(body=stmt.body.with_changes(body=[*doc, match]))
        count += 1
    return _code(module.with_changes(body=body)) if count else None


@mutation("async_def")
def async_def(src: bytes, rng: random.Random) -> Optional[bytes]:
    """Top-level functions made ``async def`` (no yield inside)."""
    module = _parse(src)
    if module is None:
        return None
    body = list(module.body)
    count = 0
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.FunctionDef) and stmt.asynchronous is None and not any(
                isinstance(n, (cst.Yield, cst.Lambda)) for n in _all_nodes(stmt)):
            body[i] = stmt.with_changes(asynchronous=cst.Asynchronous())
            count += 1
    return _code(module.with_changes(body=body)) if count else None


# -- statements ---------------------------------------------------------------------------


def _statements(module: cst.Module) -> list[cst.CSTNode]:
    return [n for n in _all_nodes(module) if isinstance(n, (cst.SimpleStatementLine, cst.BaseCompoundStatement))]


@mutation("delete_statement")
def delete_statement(src: bytes, rng: random.Random) -> Optional[bytes]:
    module = _parse(src)
    if module is None:
        return None
    stmts = _statements(module)
    if not stmts:
        return None
    target = rng.choice(stmts)

    class T(cst.CSTTransformer):
        def on_leave(self, original, updated):
            if original is target:
                return cst.RemoveFromParent()
            return updated

        def leave_IndentedBlock(self, original, updated):
            if not updated.body:
                return updated.with_changes(body=[_stmt("pass\n")])
            return updated

    return _code(module.visit(T()))


@mutation("duplicate_statement")
def duplicate_statement(src: bytes, rng: random.Random) -> Optional[bytes]:
    module = _parse(src)
    if module is None:
        return None
    stmts = [s for s in _statements(module) if not _is_docstring(s)]
    if not stmts:
        return None
    target = rng.choice(stmts)

    class T(cst.CSTTransformer):
        def on_leave(self, original, updated):
            if original is target:
                return cst.FlattenSentinel([updated, updated.with_changes(leading_lines=())])
            return updated

    return _code(module.visit(T()))


# -- broken files ---------------------------------------------------------------------------


@mutation("truncated", breaking=True)
def truncated(src: bytes, rng: random.Random) -> Optional[bytes]:
    return src[: rng.randrange(len(src))] if len(src) > 1 else None


@mutation("unbalanced_bracket", breaking=True)
def unbalanced_bracket(src: bytes, rng: random.Random) -> Optional[bytes]:
    lines = src.split(b"\n")
    i = rng.randrange(len(lines))
    lines[i] = lines[i] + b" ("
    return b"\n".join(lines)


@mutation("bad_indent", breaking=True)
def bad_indent(src: bytes, rng: random.Random) -> Optional[bytes]:
    lines = src.split(b"\n")
    candidates = [i for i, line in enumerate(lines) if line.strip() and not line.startswith(b"#")]
    if not candidates:
        return None
    i = rng.choice(candidates)
    lines[i] = b"   " + lines[i]
    return b"\n".join(lines)


@mutation("invalid_utf8", breaking=True)
def invalid_utf8(src: bytes, rng: random.Random) -> Optional[bytes]:
    at = rng.randrange(len(src) + 1)
    return src[:at] + b"\xff\xfe" + src[at:]


@mutation("nul_byte", breaking=True)
def nul_byte(src: bytes, rng: random.Random) -> Optional[bytes]:
    at = rng.randrange(len(src) + 1)
    return src[:at] + b"\x00" + src[at:]


# -- checks ---------------------------------------------------------------------------------


@dataclasses.dataclass
class Failure:
    invariant: str
    detail: str


def compiles(source: bytes, path: str = "<mutant>") -> bool:
    try:
        compile(source, path, "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


_RULES = None


def rules():
    global _RULES
    if _RULES is None:
        _RULES = all_rules()
    return _RULES


OPTIONS = Options(target_jax=(0, 10, 2), unsafe_fixes=False, annotate=False, every_rule=True)
OPTION_SETS = {
    "default": OPTIONS,
    "unsafe": dataclasses.replace(OPTIONS, unsafe_fixes=True),
    "annotate": dataclasses.replace(OPTIONS, annotate=True),
}


def run_engine(path: str, source: bytes, options: Options = OPTIONS):
    return process_candidate(path, source, rules(), options)


def missing_references(source: bytes) -> list[tuple[int, str]]:
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    # The module's version flags (``JAX_GE_0_8_2 = JAX_VERSION >= Version("0.8.2")``) guard
    # their branches, as in the migration-rate count.
    finder = missing_apis.Finder(missing_apis._module_flags(tree))
    finder.visit(tree)
    return finder.refs


def _line_map(original: bytes, new: bytes, encoding: str) -> dict[int, int]:
    a = original.decode(encoding, "replace").splitlines()
    b = new.decode(encoding, "replace").splitlines()
    mapping = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        for k in range(j2 - j1):
            position = i1 + min(k, max(i2 - i1 - 1, 0))
            if tag == "replace":
                # Lines removed above an edited one shift it: the most similar old line of
                # the block is where it came from (`from m import Mesh, xmap` -> `import xmap`).
                def likeness(i: int) -> tuple:
                    # Shared names first (`from jax import core, xla` came from `from jax
                    # import abstract_arrays, core, xla, api`, not from `from jax import lax`).
                    old, new = set(re.findall(r"\w+", a[i])), set(re.findall(r"\w+", b[j1 + k]))
                    shared = len(old & new) / len(old | new) if old | new else 0.0
                    return (shared, difflib.SequenceMatcher(None, a[i], b[j1 + k], autojunk=False).ratio(),
                            -abs(i - position))
                position = max(range(i1, i2), key=likeness)
            mapping[j1 + k + 1] = position + 1
    return mapping


def check(path: str, mutant: bytes, kind: str, options: Options = OPTIONS) -> list[Failure]:
    failures: list[Failure] = []
    valid = compiles(mutant, path)
    try:
        result = run_engine(path, mutant, options)
    except BaseException as exc:  # noqa: BLE001 - the invariant under test
        return [Failure("crash", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")]
    if result is None:
        # No trigger: nothing to do, nothing left to report but references no rule knows.
        refs = missing_references(mutant) if valid else []
        if refs:
            failures.append(Failure("unreported", f"untriggered file keeps {refs[:3]}"))
        return failures
    if result.error is not None:
        if "\n" in result.error or "Traceback" in result.error:
            failures.append(Failure("error", f"multi-line error: {result.error[:300]!r}"))
        if result.error.startswith("internal error") or "worker failed" in result.error:
            failures.append(Failure("crash", result.error))
        elif valid and kind.split("+")[0] not in BREAKING:
            failures.append(Failure("error", f"valid file refused: {result.error}"))
        return failures
    output = result.updated if result.updated is not None else mutant
    if result.updated is not None:
        if valid and not compiles(output, path):
            failures.append(Failure("compile", "the rewrite does not compile"))
            return failures
        try:
            again = run_engine(path, output, options)
        except BaseException as exc:  # noqa: BLE001
            again = None
            failures.append(Failure("crash", f"second run raised {type(exc).__name__}: {exc}"))
        if again is not None and (again.error is not None or again.updated is not None):
            failures.append(Failure("idempotent", again.error or "a second run changes the rewrite"))
    if valid:
        manual = [c for c in result.changes if c.safety is Safety.MANUAL]
        mapping = _line_map(mutant, output, result.encoding) if result.updated is not None else {}
        shadow = shadowed_text(output)
        # missing_apis.py does not follow local scopes: names of the shadowing function are no references.
        end = output.count(b"\n", 0, len(output) - len(shadow)) + 1 if shadow is not None else None
        for line, name in missing_references(output):
            if end is not None and line >= end:
                continue
            at = mapping.get(line, line)
            if not any(c.line <= at <= max(c.end_line, c.line) for c in manual):
                unsafe = [c for c in result.changes if c.safety is Safety.UNSAFE and not c.applied
                          and c.line <= at <= max(c.end_line, c.line)]
                why = " (an unsafe fix not applied covers it)" if unsafe else ""
                failures.append(Failure("unreported", f"line {line} (mutant line {at}): {name}{why}"))
    if kind == "shadow_local":
        before = shadowed_text(mutant)
        after = shadowed_text(output)
        if before is not None and before != after:
            failures.append(Failure("shadowed", "a local variable named like a jax module was rewritten"))
    return failures


# -- lowering ---------------------------------------------------------------------------------


_COMPAT = None


def compat_cases() -> dict[str, list]:
    global _COMPAT
    if _COMPAT is None:
        from tests.compat.declarations import cases

        _COMPAT = {}
        for case in cases():
            _COMPAT.setdefault(case.fixture, []).append(case)
    return _COMPAT


def _left_for_user(result) -> int:
    """Findings that leave a site as it was: manual ones, and unsafe fixes not applied."""
    return sum(1 for c in result.changes if c.safety is Safety.MANUAL or (c.safety is Safety.UNSAFE and not c.applied))


def describe_rewrite(case, source: bytes, workdir: str) -> tuple[Optional[dict], str]:
    """Rewrite ``source`` as the case does and lower its entry: (description, problem)."""
    from tests.compat.custom_calls import custom_calls, load_module, lower_entry
    from tests.helpers import fixture_args, rewrite_source

    args = list(fixture_args(source))
    if case.rules:
        args += ["--select", ",".join(case.rules)]
    result = rewrite_source(source, case.fixture, args)
    if result.error:
        return None, f"rewrite failed: {result.error}"
    manual = _left_for_user(result)
    text = result.updated if result.updated is not None else source
    describe_rewrite.counter += 1
    path = os.path.join(workdir, f"fuzz_mutant_{describe_rewrite.counter}.py")
    with open(path, "wb") as fh:
        fh.write(text)
    folder = os.path.dirname(case.fixture)
    sys.path.insert(0, folder)
    try:
        module = load_module(path, f"fuzz_mutant_{describe_rewrite.counter}")
        calls = custom_calls(lower_entry(module, case.entry))
    except Exception as exc:  # noqa: BLE001 - reported as a lowering failure
        return None, f"lowering raised {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    finally:
        sys.path.remove(folder)
    return {"custom_calls": calls, "outputs": None, "manual": manual}, ""


describe_rewrite.counter = 0


def check_lowering(path: str, mutant: bytes, workdir: str, baseline: dict) -> list[Failure]:
    from tests.compat.declarations import mismatches

    failures = []
    from tests.helpers import fixture_args, rewrite_source

    for case in compat_cases().get(path, []):
        key = (path, case.entry)
        if key not in baseline:
            with open(path, "rb") as fh:
                baseline[key] = describe_rewrite(case, fh.read(), workdir)[0]
        want = baseline[key]
        if want is None:
            continue
        args = list(fixture_args(mutant)) + (["--select", ",".join(case.rules)] if case.rules else [])
        result = rewrite_source(mutant, case.fixture, args)
        if _left_for_user(result) > want["manual"]:
            continue  # left for the user, with a finding that says so: nothing to lower yet
        got, problem = describe_rewrite(case, mutant, workdir)
        if got is None:
            failures.append(Failure("lowering", f"{case.entry}: {problem}"))
            continue
        if got["custom_calls"] != want["custom_calls"]:
            failures.append(Failure("lowering", f"{case.entry}: {got['custom_calls']} != unmutated {want['custom_calls']}"))
        expect = {k: v for k, v in case.expect.items() if k != "outputs"}
        bad = mismatches(expect, got)
        if bad:
            failures.append(Failure("lowering", f"{case.entry}: differs from compat.toml: {bad}"))
    return failures


# -- driver -------------------------------------------------------------------------------------


@dataclasses.dataclass
class Mutant:
    seed: str
    kinds: tuple[str, ...]
    source: bytes
    options: str = "default"

    @property
    def kind(self) -> str:
        return "+".join(self.kinds)


def apply_mutation(kind: str, source: bytes, rng: random.Random) -> Optional[bytes]:
    """The mutant, or ``None`` where the kind does not apply to this source."""
    try:
        return MUTATIONS[kind](source, rng)
    except (cst.CSTValidationError, cst.ParserSyntaxError, ValueError, TypeError):
        return None  # a shape the mutation cannot build here (say, positional after keyword)


def mutants(paths: list[str], kinds: list[str], stack: int = 1, rounds: int = 1, seed: int = 0,
            every: int = 1) -> Iterable[Mutant]:
    """Every seed with every kind once, then ``rounds`` of ``stack`` random kinds per seed.

    With ``every`` N, seed i gets kind k only when (i + k) % N == 0: a 1/N sample in
    which every seed and every kind still occur.
    """
    for i, path in enumerate(paths):
        with open(path, "rb") as fh:
            original = fh.read()
        for n, kind in enumerate(kinds):
            if (i + n) % every:
                continue
            rng = random.Random(f"{seed}:{seed_id(path)}:{kind}")
            out = apply_mutation(kind, original, rng)
            if out is not None and (out != original or kind == "seed"):
                yield Mutant(path, (kind,), out, list(OPTION_SETS)[n % len(OPTION_SETS)])
        if stack > 1:
            stackable = [k for k in kinds if k not in BREAKING]
            for r in range(rounds):
                rng = random.Random(f"{seed}:{seed_id(path)}:stack:{r}")
                chosen = tuple(rng.sample(stackable, min(stack, len(stackable))))
                source = original
                applied = []
                for kind in chosen:
                    out = apply_mutation(kind, source, rng)
                    if out is not None and out != source:
                        source, applied = out, [*applied, kind]
                if applied:
                    yield Mutant(path, tuple(applied), source, rng.choice(list(OPTION_SETS)))


def run_mutant(m: Mutant, lower: bool = False, workdir: str = "", baseline: Optional[dict] = None) -> list[Failure]:
    failures = check(m.seed, m.source, m.kind, OPTION_SETS[m.options])
    if lower and all(k in PRESERVING for k in m.kinds) and m.seed in compat_cases() and compiles(m.source):
        failures += check_lowering(m.seed, m.source, workdir, baseline if baseline is not None else {})
    return failures


_worker: dict = {}


def _run_in_worker(m: Mutant) -> tuple[Mutant, list[Failure]]:
    return m, run_mutant(m, _worker["lower"], _worker["workdir"], _worker["baseline"])


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", help="comma-separated mutation kinds (default: all)")
    parser.add_argument("--seeds", help="only seeds whose path contains this text")
    parser.add_argument("--seed-dir", metavar="DIR", help="take every .py file under DIR as a seed instead of the fixtures")
    parser.add_argument("--stack", type=int, default=1, help="also stack this many random kinds per mutant")
    parser.add_argument("--rounds", type=int, default=1, help="stacked mutants per seed")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the mutations")
    parser.add_argument("--lower", action="store_true", help="also lower the compat cases' mutants")
    parser.add_argument("--save", metavar="DIR", help="write each failing mutant to DIR")
    parser.add_argument("--options", choices=list(OPTION_SETS), help="run every mutant with these options (default: rotate)")
    parser.add_argument("--every", type=int, default=1, metavar="N", help="a 1/N sample of the seed x kind pairs")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("-v", "--verbose", action="store_true", help="print failure details")
    parser.add_argument("--list", action="store_true", help="list the mutation kinds")
    args = parser.parse_args(argv)
    if args.list:
        for name, fn in MUTATIONS.items():
            print(f"{name:24} {(fn.__doc__ or '').strip().splitlines()[0] if fn.__doc__ else ''}")
        return 0
    kinds = args.kinds.split(",") if args.kinds else list(MUTATIONS)
    paths = [p for p in seeds(args.seed_dir) if not args.seeds or args.seeds in p]
    totals: collections.Counter = collections.Counter()
    failed: collections.Counter = collections.Counter()
    by_invariant: collections.Counter = collections.Counter()
    baseline: dict = {}
    with tempfile.TemporaryDirectory() as workdir:
        _worker.update(lower=args.lower, workdir=workdir, baseline=baseline)
        items = mutants(paths, kinds, args.stack, args.rounds, args.seed, args.every)
        if args.options:
            items = (dataclasses.replace(m, options=args.options) for m in items)
        if args.jobs > 1:
            import multiprocessing

            pool = multiprocessing.get_context("fork").Pool(args.jobs)
            results = pool.imap(_run_in_worker, items, chunksize=4)
        else:
            pool = None
            results = map(_run_in_worker, items)
        for m, failures in results:
            totals[m.kind if len(m.kinds) == 1 else "stacked"] += 1
            if not failures:
                continue
            failed[m.kind if len(m.kinds) == 1 else "stacked"] += 1
            for f in failures:
                by_invariant[f.invariant] += 1
            first = failures[0]
            print(f"FAIL {seed_id(m.seed)} [{m.kind}] ({m.options}) {first.invariant}: "
                  f"{first.detail.splitlines()[0][:200]}" + (f" (+{len(failures) - 1} more)" if len(failures) > 1 else ""))
            if args.verbose:
                for f in failures:
                    print(f"    {f.invariant}: {f.detail}")
            if args.save:
                os.makedirs(args.save, exist_ok=True)
                name = f"{seed_id(m.seed).replace(os.sep, '__').lstrip('._')[:-3]}__{m.kind}.py"
                with open(os.path.join(args.save, name), "wb") as fh:
                    fh.write(m.source)
    if pool is not None:
        pool.close()
        pool.join()
    print()
    print(f"{'kind':24} {'mutants':>8} {'failed':>7}")
    for kind in sorted(totals):
        print(f"{kind:24} {totals[kind]:8} {failed[kind]:7}")
    print(f"{'total':24} {sum(totals.values()):8} {sum(failed.values()):7}")
    if by_invariant:
        print("failures by invariant: " + ", ".join(f"{k} {v}" for k, v in by_invariant.most_common()))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
