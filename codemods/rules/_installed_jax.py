"""What the installed jax binds, read from its source without importing it: whether a
dotted jax/jaxlib name exists (:func:`first_missing`), and the installed release
(:func:`installed_version`). Names a compiled module binds are taken as present, but for
the MLIR bindings, read from the stubs generated with them (:data:`STUBBED`); names
jaxlib binds only when a GPU plugin is installed are told apart (their plugin
imports come with the answer). Shared by the rules that decide on a name's existence
(removed-jax-api, xla-translation-rule) and by version tests read on the target."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import os
import re
from functools import lru_cache
from typing import Optional

@lru_cache(maxsize=None)
def _package_dir(top: str) -> Optional[str]:
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return locations[0] if locations else None


@lru_cache(maxsize=None)
def installed_version() -> Optional[tuple[int, ...]]:
    base = _package_dir("jax")
    if base is None:
        return None
    try:
        with open(os.path.join(base, "version.py"), encoding="utf-8") as f:
            match = re.search(r'^_version\s*(?::\s*str)?\s*=\s*"([0-9.]+)"', f.read(), re.M)
    except OSError:
        return None
    return tuple(int(p) for p in match.group(1).split(".")) if match else None


#: Compiled modules whose ``.pyi`` stubs are read as their source (generated stubs, which
#: list every public name; jaxlib's hand-written ``_jax.pyi`` is not among them).
STUBBED = "jaxlib.mlir._mlir_libs._mlir."


@lru_cache(maxsize=None)
def _module_file(module: str) -> Optional[str]:
    """Source file of ``module``; ``""`` when it exists but is compiled; ``None`` if absent."""
    parts = module.split(".")
    base = _package_dir(parts[0])
    if base is None:
        return ""  # not installed: nothing can be said
    path = os.path.join(base, *parts[1:])
    for candidate in (path + ".py", os.path.join(path, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    if module.startswith(STUBBED):
        # The MLIR bindings are compiled; the stubs beside them are generated from them
        # (jaxlib 0.10.2's and 0.12.1's ``ir.pyi`` name every public member of ``ir``;
        # older jaxlibs ship none, and the module stays unread as before).
        for candidate in (path + ".pyi", os.path.join(path, "__init__.pyi")):
            if os.path.isfile(candidate):
                return candidate
    directory, stem = os.path.split(path)
    try:
        if any(n.startswith(stem + ".") and n.endswith((".so", ".pyd")) for n in os.listdir(directory)):
            return ""
    except OSError:
        return None
    return "" if os.path.isdir(path) else None


def _namespace_package(module: str) -> bool:
    """``module`` is a folder of the installed package without ``__init__.py``."""
    parts = module.split(".")
    base = _package_dir(parts[0])
    if base is None or len(parts) < 2:
        return False
    path = os.path.join(base, *parts[1:])
    return os.path.isdir(path) and not os.path.exists(os.path.join(path, "__init__.py"))


class _Names:
    """What one module binds at top level."""

    def __init__(self, names: set[str], removed: set[str], deprecated: set[str], opaque: bool,
                 classes: dict[str, ast.ClassDef], imported: dict[str, str],
                 namespaces: Optional[dict[str, frozenset[str]]] = None) -> None:
        self.names = names
        self.removed = removed
        self.deprecated = deprecated
        #: A ``__getattr__`` that may serve any name.
        self.opaque = opaque
        self.classes = classes
        #: local name -> qualified name it was imported from
        self.imported = imported
        #: ``name = SimpleNamespace(a=..., b=...)``: the only attributes ``name`` has.
        self.namespaces = namespaces or {}
        #: Names that exist only with a GPU plugin installed (jaxlib's ``gpu_*`` modules):
        #: ``_cuda_triton = import_from_plugin("cuda", "_triton")`` (its members) and the
        #: names bound only under ``if _cuda_triton:`` -> the (plugin, submodule) imports.
        self.plugin_modules: dict[str, tuple[tuple[str, str], ...]] = {}
        self.plugin_only: dict[str, tuple[tuple[str, str], ...]] = {}


def _plugin_bindings(body: list) -> tuple[dict, dict]:
    """jaxlib's plugin-dependent names (see ``_Names.plugin_only``)."""
    modules: dict[str, tuple[tuple[str, str], ...]] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.Call) and getattr(stmt.value.func, "id", None) == "import_from_plugin" \
                and len(stmt.value.args) == 2 and all(isinstance(a, ast.Constant) for a in stmt.value.args):
            modules[stmt.targets[0].id] = ((stmt.value.args[0].value, stmt.value.args[1].value),)
    guarded: dict[str, set] = {}
    elsewhere: set = set()

    def bound(stmts) -> set:
        found = set()
        for stmt in _top_statements(stmts):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(stmt.name)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    found.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                found.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        return found

    for stmt in body:
        if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Name) and stmt.test.id in modules and not stmt.orelse:
            for name in bound(stmt.body):
                guarded.setdefault(name, set()).update(modules[stmt.test.id])
        else:
            elsewhere |= bound([stmt])
    only = {name: tuple(sorted(deps)) for name, deps in guarded.items() if name not in elsewhere}
    return modules, only


@lru_cache(maxsize=None)
def _plugin_installed(plugin: str, submodule: str) -> bool:
    """Whether jaxlib finds that plugin submodule here (as its ``gpu_*`` modules ask)."""
    try:
        from jaxlib.plugin_support import import_from_plugin
        return import_from_plugin(plugin, submodule) is not None
    except Exception:  # noqa: BLE001 - no jaxlib, an unknown plugin, a broken install
        return False


def _top_statements(body):
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.Try, ast.With)):
            blocks = [stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])]
            blocks += [h.body for h in getattr(stmt, "handlers", [])]
            for block in blocks:
                yield from _top_statements(block)


def _resolve(module: str, level: int, target: Optional[str], is_package: bool) -> str:
    if not level:
        return target or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


@lru_cache(maxsize=None)
def _names_of(module: str, follow_star: bool = True) -> Optional[_Names]:
    path = _module_file(module)
    if not path:
        return None
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return None
    is_package = path.endswith("__init__.py")
    names: set[str] = set()
    removed: set[str] = set()
    deprecated: set[str] = set()
    classes: dict[str, ast.ClassDef] = {}
    imported: dict[str, str] = {}
    namespaces: dict[str, frozenset[str]] = {}
    opaque = False
    for stmt in _top_statements(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
            if isinstance(stmt, ast.ClassDef):
                classes[stmt.name] = stmt
            if stmt.name == "__getattr__":
                opaque = True
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        names.add(node.id)
                        imported.pop(node.id, None)  # rebound: no longer the imported object
                        members = _namespace_members(stmt.value) if target is node else None
                        if members is not None:
                            namespaces[node.id] = members
                        else:
                            namespaces.pop(node.id, None)
                        if node.id == "__getattr__" and not _is_deprecation_getattr(stmt.value):
                            opaque = True
                        if node.id == "_deprecations" and isinstance(stmt.value, ast.Dict):
                            for key, value in zip(stmt.value.keys, stmt.value.values):
                                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                                    gone = (isinstance(value, ast.Tuple) and len(value.elts) > 1
                                            and isinstance(value.elts[1], ast.Constant) and value.elts[1].value is None)
                                    (removed if gone else deprecated).add(key.value)
                        if node.id == "__all__" and isinstance(stmt.value, (ast.List, ast.Tuple)):
                            names.update(e.value for e in stmt.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                local = alias.asname or alias.name.split(".")[0]
                names.add(local)
                imported[local] = alias.name if alias.asname else local
        elif isinstance(stmt, ast.ImportFrom):
            source = _resolve(module, stmt.level, stmt.module, is_package)
            for alias in stmt.names:
                if alias.name == "*":
                    star = _names_of(source, False) if follow_star and source.split(".")[0] in ("jax", "jaxlib") else None
                    if star is None or star.opaque:
                        opaque = True
                    else:
                        names.update(n for n in star.names if not n.startswith("_"))
                    continue
                local = alias.asname or alias.name
                names.add(local)
                imported[local] = f"{source}.{alias.name}"
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    names.discard(target.id)
                    namespaces.pop(target.id, None)
                    imported.pop(target.id, None)
    found = _Names(names, removed, deprecated, opaque, classes, imported, namespaces)
    if module.split(".")[0] == "jaxlib":
        found.plugin_modules, found.plugin_only = _plugin_bindings(tree.body)
    return found


def _namespace_members(value: Optional[ast.expr]) -> Optional[frozenset[str]]:
    """The attributes of ``SimpleNamespace(a=..., b=...)``; ``None`` for any other value."""
    if not isinstance(value, ast.Call) or value.args or any(k.arg is None for k in value.keywords):
        return None
    func = value.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return frozenset(k.arg for k in value.keywords) if name == "SimpleNamespace" else None


def _is_deprecation_getattr(value: Optional[ast.expr]) -> bool:
    if not isinstance(value, ast.Call) or len(value.args) != 2:
        return False
    func = value.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    arg = value.args[1]
    return "deprecation_getattr" in name and isinstance(arg, ast.Name) and arg.id == "_deprecations"


def _class_has(cls: ast.ClassDef, attr: str) -> bool:
    """Whether a class defines ``attr``; true on any doubt (bases, metaclass, __getattr__)."""
    if cls.keywords or any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases):
        return True
    for stmt in _top_statements(cls.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if stmt.name in (attr, "__getattr__", "__getattribute__"):
                return True
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name) and node.id in (attr, "__slots__") and node.id == attr:
                        return True
    return False


#: Attributes every module object has, whatever its source binds.
MODULE_DUNDERS = frozenset({"__file__", "__dict__", "__name__", "__doc__", "__spec__", "__loader__", "__package__",
                            "__path__", "__builtins__", "__cached__"})


def first_missing(qualified: str, depth: int = 0) -> Optional[str]:
    """The shortest prefix of ``qualified`` the installed jax lacks, or ``None``."""
    return _missing(qualified, depth)[0]


def awaited_plugins(qualified: str) -> tuple:
    """The (plugin, submodule) imports on which jaxlib binds a missing ``qualified``
    (``gpu_triton.TritonKernel``: ``("cuda", "_triton")``...); empty when none does."""
    return _missing(qualified)[1]


_PRESENT: tuple[Optional[str], tuple] = (None, ())


@lru_cache(maxsize=None)
def _missing(qualified: str, depth: int = 0) -> tuple[Optional[str], tuple]:
    """:func:`first_missing`'s prefix, and the (plugin, submodule) imports it waits for
    when it is missing only because no GPU plugin is installed (else empty)."""
    parts = qualified.split(".")
    if parts[0] not in ("jax", "jaxlib") or depth > 8:
        return _PRESENT
    module = parts[0]
    if _package_dir(module) is None:
        return _PRESENT
    for i in range(1, len(parts)):
        part = parts[i]
        if part in MODULE_DUNDERS:
            return _PRESENT  # every module has them (a package ``__path__`` too)
        sub = f"{module}.{part}"
        if _module_file(sub) is not None:
            module = sub
            continue
        info = _names_of(module)
        prefix = ".".join(parts[: i + 1])
        if info is None:
            # A namespace package (jaxlib.mlir.dialects: a folder, no __init__.py) has only
            # its submodules: one that is not there is missing (jaxlib 0.10 has no
            # ``tensor`` dialect).
            return (prefix, ()) if _namespace_package(module) else _PRESENT
        if part in info.removed:
            return prefix, ()
        deps = info.plugin_only.get(part, ())
        if deps and not any(_plugin_installed(*d) for d in deps):
            return prefix, deps  # bound only with a GPU plugin, which is not installed here
        deps = info.plugin_modules.get(part, ())
        if deps and len(parts) > i + 1 and not any(_plugin_installed(*d) for d in deps):
            return ".".join(parts[: i + 2]), deps  # a member of the plugin's module, which is None here
        if part in info.deprecated:
            return _PRESENT
        if part not in info.names:
            return _PRESENT if info.opaque else (prefix, ())
        rest = parts[i + 1:]
        if not rest:
            return _PRESENT
        if part in info.imported:
            found, deps = _missing(".".join([info.imported[part], *rest]), depth + 1)
            if found is None:
                return _PRESENT
            # Spell the missing part in the name the user wrote.
            return ".".join(parts[: i + 1 + len(found.split(".")) - len(info.imported[part].split("."))]), deps
        if part in info.classes and not _class_has(info.classes[part], rest[0]):
            return ".".join(parts[: i + 2]), ()
        if part in info.namespaces and rest[0] not in info.namespaces[part]:
            return ".".join(parts[: i + 2]), ()
        return _PRESENT
    return _PRESENT
