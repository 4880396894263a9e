"""Count references to jax APIs that the installed jax no longer has.

    python benchmarks/missing_apis.py PATH...          # one line per reference, then totals
    python benchmarks/missing_apis.py --json PATH...

A reference is an import of, or a dotted use through an import of, a ``jax``/``jaxlib``
name that cannot be resolved on the installed jax (module missing, attribute missing).
References inside a compatibility guard do not count: the body of a ``try`` whose
handlers catch ImportError/AttributeError/ModuleNotFoundError, branches of an ``if``
that tests the jax version or ``hasattr``, and what follows such a test in an
``and``/``or`` chain. Run it before and after ``ccmigrate apply``
to measure how much of a repository's legacy API use a migration removed.
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import json
import os
import sys
from functools import lru_cache

GUARD_EXCEPTIONS = {"ImportError", "ModuleNotFoundError", "AttributeError", "Exception"}


@lru_cache(maxsize=None)
def exists(qualified: str) -> bool:
    parts = qualified.split(".")
    for i in range(len(parts), 0, -1):
        module_name = ".".join(parts[:i])
        try:
            obj = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            # A jax module that imports an optional dependency missing here (absl for
            # jax._src.test_util) still exists: only a missing module itself counts.
            if error.name and not (module_name + ".").startswith(error.name + "."):
                return True
            continue
        except Exception:  # noqa: BLE001 - any failure means "not importable here"
            continue
        for attr in parts[i:]:
            if obj is None or isinstance(obj, (bool, int, float, str, bytes)):
                # A value, such as a config option's (``jax.config.jax_default_device``
                # is None unless set): what it holds at run time is not an API of jax.
                return True
            try:
                obj = getattr(obj, attr)
            except AttributeError:
                # A submodule not imported by its parent still exists.
                try:
                    obj = importlib.import_module(f"{module_name}.{attr}")
                    module_name = f"{module_name}.{attr}"
                except Exception:  # noqa: BLE001
                    return False
            except Exception:  # noqa: BLE001
                # A property that raises outside the state it reads (jaxlib.mlir's
                # ``ir.InsertionPoint.current`` with no insertion point set) is there.
                return True
        return True
    return False


def _imports_jax(stmts) -> bool:
    for stmt in stmts:
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.Import) and any(a.name.split(".")[0] in ("jax", "jaxlib") for a in sub.names):
                return True
            if isinstance(sub, ast.ImportFrom) and not sub.level and (sub.module or "").split(".")[0] in ("jax", "jaxlib"):
                return True
    return False


def _is_guard_try(node: ast.Try) -> bool:
    # `try: from . import gpu_ops; xla_client.register_...(...) except ImportError:` guards an
    # optional extension module, not a jax version: only a try that imports jax, or that
    # catches AttributeError (probing a jax attribute), is a compatibility guard.
    catches_import_only = True
    for handler in node.handlers:
        if handler.type is not None:
            types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            if {"AttributeError", "Exception"} & {getattr(t, "id", getattr(t, "attr", "")) for t in types}:
                catches_import_only = False
        else:
            catches_import_only = False
    if catches_import_only and not _imports_jax(node.body):
        return False
    for handler in node.handlers:
        names = []
        if handler.type is None:
            return True
        for t in handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]:
            names.append(getattr(t, "id", getattr(t, "attr", "")))
        if GUARD_EXCEPTIONS & set(names):
            return True
    return False


GUARD_KEYS = ("__version", "version_info", "hasattr(", "jax_version", "jaxlib_version", "mlir_api_version",
              "xla_extension_version", "version('jax", "version('jaxlib")


class _ConstantFStrings(ast.NodeTransformer):
    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        if all(isinstance(v, ast.Constant) for v in node.values):
            return ast.Constant("".join(v.value for v in node.values))
        return node


def _constant_fstrings(test: ast.expr) -> ast.expr:
    """``version(f"jax")`` read as ``version("jax")``: an f-string without fields is a constant."""
    return _ConstantFStrings().visit(copy.deepcopy(test))


def _is_guard_test(test: ast.expr, flags: dict[str, ast.expr], depth: int = 0) -> bool:
    """A jax version or ``hasattr`` test, also through a module-level flag bound to one
    (``JAX_GE_0_8_2 = JAX_VERSION >= Version("0.8.2")``, ``JAX_VERSION = Version(version("jax"))``)."""
    text = ast.unparse(_constant_fstrings(test))
    if any(key in text for key in GUARD_KEYS):
        return True
    if depth >= 3:
        return False
    return any(isinstance(sub, ast.Name) and sub.id in flags and _is_guard_test(flags[sub.id], flags, depth + 1)
               for sub in ast.walk(test))


def _module_level(body: list[ast.stmt]):
    """Module-level statements, also those in module-level ``if``/``try`` blocks (a flag
    bound once under ``if platform == "cpu":`` is still bound once)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _module_level(stmt.body + stmt.orelse)
        elif isinstance(stmt, ast.Try):
            yield from _module_level(stmt.body + [s for h in stmt.handlers for s in h.body] + stmt.orelse + stmt.finalbody)


def _module_flags(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level names bound once, to what."""
    bound: dict[str, ast.expr] = {}
    seen: set[str] = set()
    for stmt in _module_level(tree.body):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value else []
        for target in targets:
            if isinstance(target, ast.Name):
                if target.id in seen:
                    bound.pop(target.id, None)
                else:
                    bound[target.id] = stmt.value
                seen.add(target.id)
    return bound


class Finder(ast.NodeVisitor):
    def __init__(self, flags: dict[str, ast.expr] | None = None) -> None:
        self.flags = flags or {}
        self.bindings: dict[str, str] = {}
        self.guard = 0
        self.refs: list[tuple[int, str]] = []

    def _guarded(self, body_visit):
        self.guard += 1
        body_visit()
        self.guard -= 1

    def visit_Try(self, node: ast.Try) -> None:
        if _is_guard_try(node):
            self.guard += 1
            for stmt in node.body + node.orelse:
                self.visit(stmt)
            for handler in node.handlers:
                self.visit(handler)
            self.guard -= 1
            for stmt in node.finalbody:
                self.visit(stmt)
        else:
            self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        # ``hasattr(jax, "pxla") and jax.pxla.X``: what follows a version or hasattr test in
        # an ``and``/``or`` chain runs only when the test lets it.
        self.visit(node.values[0])
        guarded = 0
        for previous, value in zip(node.values, node.values[1:]):
            if not guarded and _is_guard_test(previous, self.flags):
                guarded = 1
                self.guard += 1
            self.visit(value)
        self.guard -= guarded

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self.visit_If(node)  # ``a if jax.__version__ >= ... else b`` is a version test too

    def visit_If(self, node: ast.If) -> None:
        if _is_guard_test(node.test, self.flags):
            self.guard += 1
            self.generic_visit(node)
            self.guard -= 1
        else:
            self.generic_visit(node)

    def _visit_scope(self, node, params: ast.arguments, body) -> None:
        """A function's parameters and assigned names hide the module's imports of those
        names inside it (``def energy(model, config): config.shape`` reads no jax.config)."""
        for default in [*params.defaults, *params.kw_defaults]:
            if default is not None:
                self.visit(default)
        for decorator in getattr(node, "decorator_list", ()):
            self.visit(decorator)
        local = {a.arg for a in [*params.posonlyargs, *params.args, *params.kwonlyargs]}
        local |= {a.arg for a in (params.vararg, params.kwarg) if a is not None}
        declared = set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                local.add(sub.id)
            elif isinstance(sub, (ast.Global, ast.Nonlocal)):
                declared.update(sub.names)
        saved = dict(self.bindings)
        for name in local - declared:
            self.bindings.pop(name, None)
        for stmt in body if isinstance(body, list) else [body]:
            self.visit(stmt)
        self.bindings = saved

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._visit_scope(node, node.args, node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._visit_scope(node, node.args, node.body)

    def _ref(self, line: int, qualified: str) -> None:
        if qualified.split(".")[0] in ("jax", "jaxlib") and not exists(qualified):
            if not self.guard:
                self.refs.append((line, qualified))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._ref(node.lineno, alias.name)
            local = alias.asname or alias.name.split(".")[0]
            self.bindings[local] = alias.name if alias.asname else local

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module:
            return
        for alias in node.names:
            if alias.name == "*":
                self._ref(node.lineno, node.module)  # ``from jaxlib.hlo_helpers import *``
                continue
            qualified = f"{node.module}.{alias.name}"
            self._ref(node.lineno, qualified)
            self.bindings[alias.asname or alias.name] = qualified

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain = []
        current: ast.AST = node
        while isinstance(current, ast.Attribute):
            chain.append(current.attr)
            current = current.value
        if isinstance(current, ast.Name) and current.id in self.bindings:
            qualified = ".".join([self.bindings[current.id], *reversed(chain)])
            if exists(self.bindings[current.id]):
                # Report the shortest missing prefix once per chain.
                parts = qualified.split(".")
                base = len(self.bindings[current.id].split("."))
                for i in range(base + 1, len(parts) + 1):
                    if not exists(".".join(parts[:i])):
                        self._ref(node.lineno, ".".join(parts[:i]))
                        return
                return
        self.generic_visit(node)


def scan(path: str) -> list[tuple[int, str]]:
    with open(path, "rb") as fh:
        tree = ast.parse(fh.read())
    finder = Finder(_module_flags(tree))
    finder.visit(tree)
    return finder.refs


def files_under(paths):
    for given in paths:
        if os.path.isfile(given):
            yield given
            continue
        for folder, dirs, files in os.walk(given):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "build", "venv")]
            for name in sorted(files):
                if name.endswith(".py"):
                    yield os.path.join(folder, name)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    refs = []
    unparsable = []
    for path in files_under(args.paths):
        try:
            refs.extend((path, line, name) for line, name in scan(path))
        except SyntaxError:
            unparsable.append(path)
    if args.json:
        json.dump({"references": [{"path": p, "line": l, "name": n} for p, l, n in refs], "unparsable": unparsable}, sys.stdout, indent=1)
    else:
        for path, line, name in refs:
            print(f"{path}:{line}: {name}")
        print(f"{len(refs)} reference(s) to APIs missing from the installed jax; {len(unparsable)} file(s) do not parse")
    return 0


if __name__ == "__main__":
    sys.exit(main())
